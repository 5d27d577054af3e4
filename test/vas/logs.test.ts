import { startSandbox, SANDBOX_CREDENTIALS, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { captureLogs, ctx, purchase, ref, serviceFor } from './helpers';

/** One JSON line per call with operation, status, duration and request id; secrets and tokens never. */

let sandbox: RunningSandbox;
let logs: ReturnType<typeof captureLogs>;
const lines = (): string[] => logs.lines;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  logs = captureLogs();
});
afterAll(async () => {
  logs.stop();
  await sandbox.close();
});

it('logs each call and never a secret, a bearer token or a purchase token', async () => {
  const service = serviceFor(sandbox.url);
  const done = await service.confirm(
    purchase({
      subscriberIdentifier: TEST_METERS.autoKeyChange,
      amount: { currency: 'BWP', minor: 150_000 },
      externalReference: ref(),
    }),
    { requestId: 'hop-log-1' },
  );
  await service
    .validate(purchase({ subscriberIdentifier: TEST_METERS.blocked }), ctx())
    .catch(() => undefined);
  const records = lines()
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.component === 'vas');
  expect(records).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ operation: 'login', status: 200 }),
      expect.objectContaining({
        operation: 'confirm',
        status: 200,
        requestId: 'hop-log-1',
        responseRequestId: 'hop-log-1',
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({
        operation: 'validate',
        status: 422,
        errorCode: 'meter_blocked',
        outcome: 'rejected',
      }),
    ]),
  );
  const all = lines().join('\n');
  for (const secret of [
    SANDBOX_CREDENTIALS.clientSecret,
    SANDBOX_CREDENTIALS.password,
    'sbx_at_',
    'sbx_rt_',
    '26771234567',
  ]) {
    expect(all).not.toContain(secret);
  }
  for (const token of done.tokens) expect(all).not.toContain(token.value);
});
