import { InProcessJobQueue } from '../../queue';
import type { SmsSender } from '../sender';
import { DEFAULT_SMS_RETRY_POLICY } from './retry';
import { DurableSmsQueue, smsJobOptions, type SmsJob, type SmsQueueOptions } from './queue';

export interface InProcessSmsQueueOptions extends SmsQueueOptions {
  sender: SmsSender;
}

/**
 * The embedded mode's SMS queue: the same rules on timers instead of Redis. Its timers are lost
 * with the process; the messages are not (they are in the store), and the sweep at start queues
 * the open ones again.
 */
export class InProcessSmsQueue extends DurableSmsQueue {
  constructor(options: InProcessSmsQueueOptions) {
    const jobs = new InProcessJobQueue<SmsJob>({
      ...smsJobOptions(options.policy ?? DEFAULT_SMS_RETRY_POLICY, options.random),
      jobId: (job) => job.id,
    });
    super(jobs, options, true);
  }
}
