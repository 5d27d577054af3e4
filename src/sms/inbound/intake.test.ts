import { MemorySmsMoStore } from '../mo/store';
import { MESSAGE_ID_MEMORY_MS, SAME_TEXT_WINDOW_MS, SmsIntake } from './intake';
import { inboundSmsQueue, type InboundJob } from './queue';
import type { InboundSms } from './types';

/** The intake with its real store and queue (not started, so nothing is answered in between). */
function intake() {
  const queue = inboundSmsQueue();
  const jobs: InboundJob[] = [];
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = async (job) => {
    jobs.push(job);
    return enqueue(job);
  };
  return { intake: new SmsIntake(new MemorySmsMoStore(), queue), jobs, queue };
}

const sms = (messageId: string | null, text = 'HELP', from = '+26771234567'): InboundSms => ({
  provider: 'africastalking',
  messageId,
  from,
  to: '12345',
  text,
  receivedAt: 'now',
});

describe('SmsIntake', () => {
  it('takes a provider message id once (re-deliveries are dropped)', async () => {
    const { intake: i, jobs } = intake();
    expect(await i.accept(sms('ATXid_1'))).toBe('queued');
    expect(await i.accept(sms('ATXid_1'))).toBe('duplicate');
    expect(await i.accept(sms('ATXid_2'))).toBe('queued');
    // The id stays remembered after the answer (48 h): a late re-delivery is still dropped.
    await i.answered({ key: 'africastalking:ATXid_1', sms: sms('ATXid_1') });
    expect(await i.accept(sms('ATXid_1'))).toBe('duplicate');
    expect(jobs.map((j) => j.key)).toEqual(['africastalking:ATXid_1', 'africastalking:ATXid_2']);
  });

  it('without an id, takes the same sender and text once until it is answered', async () => {
    const { intake: i, jobs } = intake();
    expect(await Promise.all([i.accept(sms(null)), i.accept(sms(null)), i.accept(sms(null))])).toEqual([
      'queued',
      'duplicate',
      'duplicate',
    ]);
    expect(await i.accept(sms(null, 'help '))).toBe('duplicate');
    expect(await i.accept(sms(null, 'TOKEN'))).toBe('queued');
    expect(await i.accept(sms(null, 'HELP', '+26770000000'))).toBe('queued');
    await i.answered(jobs[0]);
    expect(await i.accept(sms(null))).toBe('queued');
    expect(jobs).toHaveLength(4);
  });

  it('remembers an id for 48 h, and the same text without an id for a few seconds', async () => {
    let now = Date.now();
    const i = new SmsIntake(new MemorySmsMoStore(() => now), inboundSmsQueue());
    expect([MESSAGE_ID_MEMORY_MS, SAME_TEXT_WINDOW_MS]).toEqual([48 * 3600_000, 10_000]);
    expect(await i.accept(sms('ATXid_3'))).toBe('queued');
    expect(await i.accept(sms(null, 'BAL'))).toBe('queued');
    now += 9_000;
    expect(await i.accept(sms(null, 'BAL'))).toBe('duplicate');
    now += 2_000;
    expect(await i.accept(sms(null, 'BAL'))).toBe('queued');
    now += 47 * 3600_000;
    expect(await i.accept(sms('ATXid_3'))).toBe('duplicate');
    now += 3600_000;
    expect(await i.accept(sms('ATXid_3'))).toBe('queued');
  });

  it('forgets a message it could not queue, so the re-delivery is taken', async () => {
    const store = new MemorySmsMoStore();
    const closed = inboundSmsQueue();
    await closed.close();
    await expect(new SmsIntake(store, closed).accept(sms('ATXid_9'))).rejects.toThrow(/closed/);
    expect(await new SmsIntake(store, inboundSmsQueue()).accept(sms('ATXid_9'))).toBe('queued');
  });

  it('takes over a marker left without its job, and keeps refusing an answered message by its job id', async () => {
    const store = new MemorySmsMoStore();
    const queue = inboundSmsQueue();
    const answered: string[] = [];
    await queue.start(async (job) => {
      answered.push(job.key);
    });
    const i = new SmsIntake(store, queue);
    // An intake that stopped between the marker and the job left only the marker.
    await store.firstSight({ provider: 'africastalking', messageId: 'ATXid_7' }, MESSAGE_ID_MEMORY_MS);
    expect(await i.accept(sms('ATXid_7'))).toBe('queued');
    while (answered.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(await i.accept(sms('ATXid_7'))).toBe('duplicate');
    expect(answered).toEqual(['africastalking:ATXid_7']);
    await queue.close();
  });
});
