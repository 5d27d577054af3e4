import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { EXIT, main } from '../../src/cli/main';
import { RedisNotificationStore } from '../../src/purchases/notify/store';
import { RedisPurchaseStore } from '../../src/purchases/store';
import { SANDBOX_CREDENTIALS, startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { createPurchaseService } from '../../src/vas';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * `npm run cli -- recover`: a purchase the service completed but the gateway lost (Redis
 * restarted empty) is re-derived by its external reference with `retry`, recorded `succeeded`
 * and its token SMS queued — never confirmed again; a second run changes nothing.
 */

let sandbox: RunningSandbox;
let redis: Redis;
const prefix = testPrefix('recover');
const PHONE = '26771230001';

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
  await sandbox.close();
});

const env = () => ({
  NODE_ENV: 'test',
  REDIS_URL: TEST_REDIS_URL,
  REDIS_PREFIX: prefix,
  ...sandboxServiceEnv(sandbox.url),
});

async function run(argv: string[], environment: NodeJS.ProcessEnv = env()) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), env: environment });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A purchase bought at the service directly: what the gateway confirmed before Redis lost it. */
async function boughtAtTheService(externalReference: string): Promise<string> {
  const service = createPurchaseService({
    baseUrl: sandbox.url,
    interface: 'v1',
    ...SANDBOX_CREDENTIALS,
    timeoutMs: 5000,
    confirmTimeoutMs: 5000,
  });
  const tx = await service.confirm(
    {
      sourceChannel: 'USSD',
      language: 'en-BW',
      productType: 'ELECTRICITY',
      providerCode: 'BPC',
      debitedAccountId: 1001,
      beneficiaryPhoneNumber: PHONE,
      subscriberIdentifier: TEST_METERS.active,
      amount: { currency: 'BWP', minor: 5000 },
      externalReference,
    },
    { requestId: `test-${externalReference}` },
  );
  return tx.rawToken!;
}

async function ledgerCount(externalReference: string): Promise<number> {
  const rows = (await (await fetch(`${sandbox.url}/sandbox/transactions`)).json()) as {
    external_reference: string;
  }[];
  return rows.filter((r) => r.external_reference === externalReference).length;
}

it('recovers a lost successful purchase once: record, token SMS queued, no second debit', async () => {
  const ref = `GW-LOST-${randomUUID().slice(0, 8)}`;
  const token = await boughtAtTheService(ref);
  const args = [
    'recover',
    '--ref',
    ref,
    '--identifier',
    TEST_METERS.active,
    '--product',
    'ELECTRICITY',
    '--phone',
    `+${PHONE}`,
  ];

  const dry = await run([...args, '--dry-run']);
  expect(dry.code).toBe(EXIT.ok);
  expect(dry.out).toContain(`${ref}  would_recover`);
  const purchases = new RedisPurchaseStore({ redis, prefix });
  expect(await purchases.getByIdempotencyKey(`recover:${ref}`)).toBeNull();

  const first = await run(args);
  expect(first.code).toBe(EXIT.ok);
  expect(first.out).toContain(`${ref}  recovered  token SMS queued`);
  const record = await purchases.getByIdempotencyKey(`recover:${ref}`);
  expect(record).toMatchObject({ state: 'succeeded', externalReference: ref });
  expect(record?.result?.rawToken).toBe(token);
  expect(record?.notifiedAt).not.toBeNull();
  const sms = await new RedisNotificationStore(redis, { prefix }).listByPurchase(record!.id);
  expect(sms).toHaveLength(1);
  expect(sms[0].message).toContain(token);

  const again = await run(args);
  expect(again.out).toContain(`${ref}  exists`);
  expect(await new RedisNotificationStore(redis, { prefix }).listByPurchase(record!.id)).toHaveLength(1);
  expect(await ledgerCount(ref)).toBe(1);
});

it('reports what it cannot recover, from a file, and writes nothing for it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'recover-'));
  const file = path.join(dir, 'lost.csv');
  writeFileSync(
    file,
    `externalReference,identifier,product,phone\nGW-NEVER-SEEN-1,${TEST_METERS.active},ELECTRICITY,${PHONE}\n`,
  );
  const { code, out } = await run(['recover', '--file', file]);
  expect(code).toBe(EXIT.ok);
  expect(out).toContain('GW-NEVER-SEEN-1  not_found  no transaction: no charge was found');
  expect(out).toContain('1 checked: 0 recovered, 0 already known, 1 not successful, 0 unchecked');
  expect(
    await new RedisPurchaseStore({ redis, prefix }).getByIdempotencyKey('recover:GW-NEVER-SEEN-1'),
  ).toBeNull();
});

it('needs REDIS_URL, with one clear line', async () => {
  const { REDIS_URL: _omitted, ...withoutRedis } = env();
  const { code, err } = await run(
    ['recover', '--ref', 'x', '--identifier', 'y', '--phone', PHONE],
    withoutRedis,
  );
  expect(code).toBe(EXIT.usage);
  expect(err).toContain('recover needs REDIS_URL');
});
