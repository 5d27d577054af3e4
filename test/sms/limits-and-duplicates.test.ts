import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { newPhone, outbox, startTestGateway, waitForSms } from '../e2e/harness';
import { testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';

/**
 * Loops and floods die out: a per-sender inbound limit answered once with "too many messages",
 * a per-sender reply limit, and messages without a provider id de-duplicated by sender and text
 * for a few seconds, until they are answered.
 */

let seq = 0;
async function send(
  gateway: Gateway,
  from: string,
  text: string,
  id: string | null = `lim-${process.pid}-${++seq}`,
) {
  const response = await axios.post(`${gateway.url}/sms/inbound`, {
    ...(id !== null && { id }),
    from,
    to: '12345',
    text,
    receivedAt: new Date().toISOString(),
  });
  return response.data as string;
}

async function handled(gateway: Gateway, outcome: string, count: number): Promise<void> {
  await until(`${count} inbound sms ${outcome}`, async () => {
    const metrics = (await axios.get(`${gateway.url}/metrics`)).data as string;
    const match = new RegExp(`sms_inbound_total\\{provider="generic",outcome="${outcome}"\\} (\\d+)`).exec(
      metrics,
    );
    return match && Number(match[1]) >= count ? true : null;
  });
}

/** The windows are per minute: start a burst well inside one. */
const insideAWindow = () =>
  until('well inside a rate window', () => (Date.now() % 60_000 < 45_000 ? true : null), {
    timeoutMs: 20_000,
  });

describe.each([['in memory'], ['on Redis']])('%s', (mode) => {
  let redis: TestRedis | undefined;
  beforeAll(() => {
    redis = mode === 'on Redis' ? testRedis('smslimits') : undefined;
  });
  afterAll(async () => {
    await redis?.cleanup();
  });
  /** The counters, markers and queue in Redis, or all in memory. */
  const env = (): Record<string, string> =>
    redis ? { REDIS_URL: redis.url, REDIS_PREFIX: `${redis.prefix}-${++seq}` } : {};

  describe('inbound rate limit', () => {
    let gateway: Gateway;
    beforeAll(async () => {
      // The reply cap below the inbound limit (as an operator may set it): the notice still goes.
      gateway = await startTestGateway({ ...env(), SMS_RATE_PER_MIN: '3', SMS_REPLIES_PER_MIN: '2' });
    });
    afterAll(() => gateway.close());

    it('answers the limit once with "too many messages", then stays silent', async () => {
      await insideAWindow();
      const phone = newPhone();
      for (let i = 0; i < 6; i += 1) await send(gateway, phone, 'HELP');
      await handled(gateway, 'rate-limited', 3);
      await handled(gateway, 'answered', 3);
      // Handled means queued: the replies and the notice reach the outbox through the SMS queue.
      await until('the replies and the notice', async () =>
        (await outbox(gateway, phone)).length >= 3 ? true : null,
      );
      const texts = (await outbox(gateway, phone)).map((m) => m.message);
      // Two answers (the third is past the reply cap), then the notice once, then nothing.
      expect(texts.filter((t) => t.startsWith('Buy by SMS'))).toHaveLength(2);
      expect(texts.filter((t) => t.startsWith('Too many messages'))).toHaveLength(1);
      expect(texts).toHaveLength(3);
    });
  });

  describe('reply limit and duplicates without an id', () => {
    let gateway: Gateway;
    beforeAll(async () => {
      gateway = await startTestGateway({ ...env(), SMS_RATE_PER_MIN: '50', SMS_REPLIES_PER_MIN: '2' });
    });
    afterAll(() => gateway.close());

    it('stops replying past the reply limit (an auto-responder loop dies out)', async () => {
      await insideAWindow();
      const phone = newPhone();
      for (let i = 0; i < 4; i += 1) await send(gateway, phone, `hello ${i}`);
      await handled(gateway, 'refused', 4);
      // Handled means queued: the replies reach the outbox through the SMS queue, in order.
      await until('the replies allowed', async () =>
        (await outbox(gateway, phone)).length >= 2 ? true : null,
      );
      expect(await outbox(gateway, phone)).toHaveLength(2);
    });

    it('answers the same text without an id again once the first was answered', async () => {
      const phone = newPhone();
      expect(await send(gateway, phone, 'HELP', null)).toBe('OK');
      await waitForSms(gateway, phone, 1);
      await until('the same text is taken again', async () =>
        (await send(gateway, phone, 'HELP', null)) === 'OK' ? true : null,
      );
      await waitForSms(gateway, phone, 2);
    });

    it('answers a message whose id holds a lone surrogate once, and takes its re-delivery as a duplicate', async () => {
      const phone = newPhone();
      // JSON may escape a lone surrogate; encodeURIComponent throws on one (found by the fuzz suite).
      const body = `{"id":"odd-${++seq}-\\ud800 &","from":"${phone}","to":"12345","text":"HELP","receivedAt":"now"}`;
      const post = () =>
        axios.post(`${gateway.url}/sms/inbound`, body, { headers: { 'content-type': 'application/json' } });
      expect((await post()).data).toBe('OK');
      await waitForSms(gateway, phone, 1);
      expect((await post()).data).toBe('OK (duplicate)');
      expect(await outbox(gateway, phone)).toHaveLength(1);
    });
  });
});
