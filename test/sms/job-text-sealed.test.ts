import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { messageId, type Message } from '../../src/messaging/message';
import { bullJobId, BullmqSmsQueue, SMS_QUEUE_NAME } from '../../src/messaging/queue/bullmq';
import type { OutboundSms, SendOutcome, SmsSender } from '../../src/messaging/sender';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import type { Database } from '../../src/records/database';
import { sealerOf } from '../../src/records/sealing';
import { testPglite } from '../support/database';
import { deleteKeysUnder, keysUnder, testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';

/**
 * An SMS's text is a token: its record seals it (src/records/sealing.ts), and so does its job,
 * which Redis keeps until the message is sent (and a failed one 30 days). Nothing under the
 * queue's keys holds the text in clear; the send opens it. A job queued before job texts were
 * sealed is sent as it is; one sealed under a key since dropped, with the text of its record.
 */

/** A provider that keeps the texts it was given. */
class KeepingSender implements SmsSender {
  readonly name = 'keeping';
  readonly texts = new Map<string, string>();
  async send(sms: OutboundSms): Promise<SendOutcome> {
    this.texts.set(sms.id, sms.message);
    return { status: 'sent', providerMessageIds: [`prov-${sms.id}`] };
  }
}

let db: Database;
let closeDb: () => Promise<void>;
let redis: TestRedis;
let seq = 0;
beforeAll(async () => {
  ({ db, cleanup: closeDb } = await testPglite());
  redis = testRedis('sms-sealed');
});
afterAll(async () => {
  await deleteKeysUnder(redis.redis, redis.prefix);
  await redis.cleanup();
  await closeDb();
});

/** A token SMS whose token is its own (a 20-digit number no other test writes). */
function tokenSms(): Message & { token: string } {
  const purchaseId = `p-sealed-${process.pid}-${++seq}`;
  const token = `4821 0093 ${String(5567 + seq).padStart(4, '0')} 1182 0046`;
  return {
    id: messageId(purchaseId, 'settled', '26771234567'),
    kind: 'purchase-outcome',
    purchaseId,
    to: '26771234567',
    message: `Electricity token: ${token}. Units: 41.2 kWh`,
    token,
  };
}

/** Everything Redis holds under `prefix`, every key's name and every value of it, as text. */
async function dumpUnder(client: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  for (const key of await keysUnder(client, prefix)) {
    parts.push(key);
    const type = await client.type(key);
    if (type === 'string') parts.push((await client.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
    else if (type === 'list') parts.push(...(await client.lrange(key, 0, -1)));
    else if (type === 'set') parts.push(...(await client.smembers(key)));
    else if (type === 'zset') parts.push(...(await client.zrange(key, '0', '-1')));
    else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(key, '-', '+')));
    else throw new Error(`key ${key} of type ${type}: not read by this test`);
  }
  return parts.join('\n');
}

function queueOn(prefix: string, sender?: SmsSender): BullmqSmsQueue {
  return new BullmqSmsQueue({
    connection: { url: redis.url, maxRetriesPerRequest: null },
    prefix,
    store: new SqlMessageStore(db),
    ...(sender && { sender }),
  });
}

async function sentRecord(queue: BullmqSmsQueue, id: string) {
  return until(`sms ${id} sent`, async () => {
    const record = await queue.get(id);
    return record?.status === 'sent' ? record : null;
  });
}

/**
 * The text the provider gets for `sms`, recorded and then queued as another build would have
 * queued its job (BullMQ directly), with the text as `asQueued` makes it.
 */
async function sentFromJobOf(
  sms: Message & { token: string },
  prefix: string,
  asQueued: (text: string) => string,
): Promise<string | undefined> {
  await new SqlMessageStore(db).create(sms, new Date());
  const other = new Queue(SMS_QUEUE_NAME, { connection: { url: redis.url }, prefix });
  const sender = new KeepingSender();
  const worker = queueOn(prefix, sender);
  try {
    const { token: _token, ...job } = sms;
    await other.add('send', { ...job, message: asQueued(sms.message) }, { jobId: bullJobId(sms.id) });
    await sentRecord(worker, sms.id);
    return sender.texts.get(sms.id);
  } finally {
    await worker.obliterate();
    await worker.close();
    await other.close();
  }
}

describe('an SMS job', () => {
  it('holds its text sealed in Redis while it waits, and is sent with the text in clear', async () => {
    const prefix = `${redis.prefix}-a`;
    const producer = queueOn(prefix);
    const sms = tokenSms();
    const staged = tokenSms();
    try {
      expect(await producer.enqueue(sms)).toBe(true);
      // The outcome's way: staged with its outcome's transaction, then started.
      expect(await db.transaction((tx) => producer.stage(staged, tx))).toBe(true);
      await producer.start(staged);

      const held = await dumpUnder(redis.redis, prefix);
      // Both jobs are there (their ids are under the queue's keys), neither's text nor token.
      expect(held).toContain(bullJobId(sms.id));
      expect(held).toContain(bullJobId(staged.id));
      expect(held).toContain('sealed:v1:');
      for (const { message, token } of [sms, staged]) {
        expect(held).not.toContain(message);
        expect(held).not.toContain(token);
        expect(held).not.toContain(token.replace(/ /g, ''));
      }
    } finally {
      await producer.close();
    }

    const sender = new KeepingSender();
    const worker = queueOn(prefix, sender);
    try {
      await sentRecord(worker, sms.id);
      await sentRecord(worker, staged.id);
      expect(sender.texts.get(sms.id)).toBe(sms.message);
      expect(sender.texts.get(staged.id)).toBe(staged.message);
    } finally {
      await worker.obliterate();
      await worker.close();
    }
  });

  it('queued with its text in clear (before job texts were sealed) is sent as it is', async () => {
    const sms = tokenSms();
    expect(await sentFromJobOf(sms, `${redis.prefix}-b`, (text) => text)).toBe(sms.message);
  });

  it('sealed under a key this process no longer has is sent with the text its record keeps', async () => {
    const sms = tokenSms();
    const dropped = sealerOf('a-token-key-dropped-since-this-job-was-queued');
    expect(await sentFromJobOf(sms, `${redis.prefix}-c`, (text) => dropped.seal(text))).toBe(sms.message);
  });
});
