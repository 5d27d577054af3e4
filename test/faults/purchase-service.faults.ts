import type { Gateway } from '../../src/gateway/app';
import { startTestGateway } from '../e2e/harness';
import { buy, FaultTable, judge, phoneFor, World } from './harness';

/**
 * Every fault of the purchase service, on validate, on confirm and on retry: the sandbox's own
 * fault injection (provider_timeout, provider_unavailable, internal_error, a slow answer past
 * the client's timeout, a dropped connection) and a 429 with Retry-After from the proxy in
 * front of it. Each runs a few subscribers buying at once through one gateway and asserts,
 * against the sandbox ledger and the SMS provider: one debit per intent at most, every debit's
 * token delivered, every failure told.
 */

const INTENTS = 3;
/** Longer than PURCHASE_API_TIMEOUT_MS and PURCHASE_API_CONFIRM_TIMEOUT_MS (1.5 s). */
const PAST_TIMEOUT_MS = 2500;
const KINDS = ['provider_timeout', 'provider_unavailable', 'internal_error', '429', 'slow', 'drop'] as const;
type Kind = (typeof KINDS)[number];
const ENDPOINTS = ['validate', 'confirm', 'retry'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

const world = new World();
const table = new FaultTable(__filename);
let gateway: Gateway;

beforeAll(async () => {
  await world.start();
  gateway = await startTestGateway(world.gatewayEnv());
});

afterAll(async () => {
  table.write();
  await gateway?.close();
  await world.close();
});

afterEach(async () => {
  await fetch(`${world.sandbox.url}/sandbox/faults`, { method: 'DELETE' });
});

/** Arms `kind` for the next two calls of `endpoint`; resolves with when the last was used. */
async function inject(endpoint: Endpoint, kind: Kind): Promise<() => Promise<number>> {
  if (endpoint === 'retry') {
    // Retry is only called after an ambiguous confirm: every confirm times out (and completes).
    await world.arm('confirm', 'provider_timeout', INTENTS);
  }
  if (kind === '429') {
    world.proxy.limit(endpoint, 2, 1);
    return async () => {
      await world.faultsSpent();
      return world.proxy.spent ? world.proxy.lastLimitedAt : Date.now();
    };
  }
  await world.arm(endpoint, kind, 2, kind === 'slow' ? PAST_TIMEOUT_MS : undefined);
  return () => world.faultsSpent();
}

async function run(fault: string, setUp: () => Promise<() => Promise<number>>): Promise<void> {
  const phones = Array.from({ length: INTENTS }, () => phoneFor());
  const ended = await setUp();
  const started = Date.now();
  await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
  const endedAt = await ended();
  table.add(await judge(world, fault, phones, () => Math.max(endedAt, started)));
}

it('no fault (baseline)', async () => {
  await run('none (baseline)', async () => async () => Date.now());
});

describe.each(ENDPOINTS)('purchase service fault on %s', (endpoint) => {
  it.each(KINDS)('%s', async (kind) => {
    const name =
      kind === '429' ? '429 Retry-After: 1' : kind === 'slow' ? `slow (${PAST_TIMEOUT_MS} ms)` : kind;
    await run(`purchase service ${endpoint}: ${name}`, () => inject(endpoint, kind));
  });
});
