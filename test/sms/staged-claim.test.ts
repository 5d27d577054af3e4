import { messageId, type Message } from '../../src/messaging/message';
import { BullmqSmsQueue } from '../../src/messaging/queue/bullmq';
import { InProcessSmsQueue } from '../../src/messaging/queue/in-process';
import type { SmsQueue } from '../../src/messaging/queue';
import type { OutboundSms, SendOutcome, SmsSender } from '../../src/messaging/sender';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import type { Database } from '../../src/records/database';
import { testPglite } from '../support/database';
import { deleteKeysUnder, testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';

/**
 * An outcome's SMS is staged with its outcome already claimed for its first attempt (`sending`,
 * one attempt counted): its job sends without a claim of its own, so the token SMS costs one
 * commit (the `sent` mark) after the outcome's. A claim would count a second attempt, which is
 * what these tests read. Any later attempt (a retry, a revival after a crash) claims as before and
 * sends again with the same id.
 */

const POLICY = { attempts: 3, baseDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 50 };

/** A provider that answers each send in turn from `answers` (then `sent`), and keeps what it got. */
class ScriptedSender implements SmsSender {
  readonly name = 'scripted';
  readonly got: string[] = [];
  constructor(private readonly answers: SendOutcome['status'][] = []) {}
  async send(sms: OutboundSms): Promise<SendOutcome> {
    this.got.push(sms.id);
    const status = this.answers.shift() ?? 'sent';
    if (status === 'retry') return { status, reason: 'provider busy' };
    if (status === 'rejected') return { status, reason: 'refused' };
    return { status: 'sent', providerMessageIds: [`prov-${this.got.length}`] };
  }
}

let db: Database;
let closeDb: () => Promise<void>;
let redis: TestRedis;
let seq = 0;
beforeAll(async () => {
  ({ db, cleanup: closeDb } = await testPglite());
  redis = testRedis('staged-claim');
});
afterAll(async () => {
  await deleteKeysUnder(redis.redis, redis.prefix);
  await redis.cleanup();
  await closeDb();
});

function tokenSms(): Message {
  const purchaseId = `p-staged-${process.pid}-${++seq}`;
  return {
    id: messageId(purchaseId, 'settled', '26771234567'),
    kind: 'purchase-outcome',
    purchaseId,
    to: '26771234567',
    message: 'Token: 1111 2222',
  };
}

/** Stage `sms` in a transaction of its own, as an outcome does; answers whether it was written. */
async function stage(queue: SmsQueue, sms: Message): Promise<boolean> {
  return db.transaction((tx) => queue.stage(sms, tx));
}

async function final(queue: SmsQueue, id: string) {
  return until(`sms ${id} final`, async () => {
    const record = await queue.get(id);
    return record && ['sent', 'rejected', 'undelivered'].includes(record.status) ? record : null;
  });
}

/** `stagedGraceMs`: how long a staged message is left to its writer's `start` (the default's 10 s). */
type Make = (sender: SmsSender, stagedGraceMs?: number) => { queue: SmsQueue; close: () => Promise<void> };

const queues: Record<string, Make> = {
  'in-process': (sender, stagedGraceMs) => {
    const queue = new InProcessSmsQueue({
      sender,
      store: new SqlMessageStore(db),
      policy: POLICY,
      stagedGraceMs,
    });
    return { queue, close: () => queue.close() };
  },
  BullMQ: (sender, stagedGraceMs) => {
    const queue = new BullmqSmsQueue({
      connection: { url: redis.url, maxRetriesPerRequest: null },
      prefix: `${redis.prefix}bull-${++seq}`,
      store: new SqlMessageStore(db),
      sender,
      policy: POLICY,
      stagedGraceMs,
    });
    return {
      queue,
      close: async () => {
        await queue.obliterate();
        await queue.close();
      },
    };
  },
};

describe.each(Object.keys(queues))('a staged SMS on the %s queue', (name) => {
  it('is written `sending` with one attempt, and its first attempt sends it without claiming again', async () => {
    const sender = new ScriptedSender();
    const { queue, close } = queues[name](sender);
    try {
      const sms = tokenSms();
      expect(await stage(queue, sms)).toBe(true);
      expect(await queue.get(sms.id)).toMatchObject({ status: 'sending', attempts: 1 });
      // Staged twice (an outcome re-run after a crash): nothing written, nothing sent twice.
      expect(await stage(queue, sms)).toBe(false);
      await queue.start(sms);
      expect(await final(queue, sms.id)).toMatchObject({ status: 'sent', attempts: 1 });
      expect(sender.got).toEqual([sms.id]);
    } finally {
      await close();
    }
  });

  it('claims its retry: a second attempt counted, the same id sent again', async () => {
    const sender = new ScriptedSender(['retry']);
    const { queue, close } = queues[name](sender);
    try {
      const sms = tokenSms();
      await stage(queue, sms);
      await queue.start(sms);
      expect(await final(queue, sms.id)).toMatchObject({ status: 'sent', attempts: 2 });
      expect(sender.got).toEqual([sms.id, sms.id]);
    } finally {
      await close();
    }
  });

  it('never started (the process died after the commit): left to its writer a while, then revived, claimed and sent once', async () => {
    const sender = new ScriptedSender();
    const sms = tokenSms();
    // Within the grace the sweep leaves it to its writer's `start`: revived then, another instance
    // could send it and see its job gone before that start adds a job that sends without reading.
    const writer = queues[name](sender);
    try {
      await stage(writer.queue, sms);
      expect(await writer.queue.sweep()).toBe(0);
    } finally {
      await writer.close();
    }
    // No `start` came (the writer died): once the grace is over, the sweep queues it again.
    const { queue, close } = queues[name](sender, 0);
    try {
      expect(await queue.sweep()).toBe(1);
      expect(await final(queue, sms.id)).toMatchObject({ status: 'sent', attempts: 2, revivals: 1 });
      expect(sender.got).toEqual([sms.id]);
    } finally {
      await close();
    }
  });

  it('a message enqueued whole (not staged) is claimed before its send, as before', async () => {
    const sender = new ScriptedSender();
    const { queue, close } = queues[name](sender);
    try {
      const sms = tokenSms();
      expect(await queue.enqueue(sms)).toBe(true);
      expect(await final(queue, sms.id)).toMatchObject({ status: 'sent', attempts: 1 });
      expect(sender.got).toEqual([sms.id]);
    } finally {
      await close();
    }
  });
});
