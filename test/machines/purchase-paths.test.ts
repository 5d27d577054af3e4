import { getAdjacencyMap, getShortestPaths, getSimplePaths } from '@xstate/graph';
import { transition } from 'xstate';
import {
  decide,
  purchaseMachine,
  type ErrorInfo,
  type LifecycleSettings,
  type PurchaseContext,
  type PurchaseEvent,
  type PurchaseSnapshot,
} from '../../src/purchases/lifecycle/machine';
import { loadLocales } from '../../src/i18n';
import { composeOutcomeSms } from '../../src/purchases/notify';
import type { PurchaseStore } from '../../src/purchases/store';
import { SETTLED_STATES, type PurchaseRecord, type PurchaseState } from '../../src/purchases/types';
import type { Transaction } from '../../src/vas/port';
import { record } from '../purchases/fixtures';
import { freshPurchaseStore } from '../purchases/records';

/**
 * Every path of the purchase lifecycle machine, generated with @xstate/graph over every answer
 * the purchase service can give (each confirm and retry outcome, at every moment that
 * matters: while the confirm may be in flight, after it, past the reconcile deadline), and run
 * through `decide()` and the store's compare-and-set exactly as the lifecycle runs them.
 * On every path: a confirm is sent again only after every earlier one provably never reached
 * the service (so at most one confirm can have reached it), and at most maxConfirmAttempts
 * are sent. Every path ending in a settled state ends with the token for the subscriber, a
 * definitive failure told to the subscriber, or needs_attention in the operators' list.
 */

const settings: LifecycleSettings = {
  confirmTimeoutMs: 30_000,
  inFlightMarginMs: 30_000,
  baseDelayMs: 5000,
  maxDelayMs: 300_000,
  deadlineMs: 1_800_000,
  // Production allows 5; 3 gives the same shapes (resend, then the limit) in a smaller graph.
  maxConfirmAttempts: 3,
  recheckForMs: 86_400_000,
  recheckEveryMs: 300_000,
  lostConfirmMarginMs: 5_000,
};
const T0 = Date.parse('2026-11-25T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const TOKEN = '1234-5678-9012-3456-7890';

const tx = (status: Transaction['status']): Transaction => ({
  id: 77,
  status,
  reference: 'TOP/77',
  productType: 'ELECTRICITY',
  providerCode: 'BPC',
  subscriberIdentifier: '01234567890',
  subscriberDetails: null,
  total: { currency: 'BWP', minor: 10_500 },
  net: { currency: 'BWP', minor: 10_000 },
  charge: { currency: 'BWP', minor: 500 },
  commission: null,
  entry: null,
  units: '45.2 kWh',
  tokens: [],
  rawToken: status === 'SUCCESSFUL' ? TOKEN : null,
  providerTransactionId: null,
  metadata: {},
  requestId: null,
});

const error = (over: Partial<ErrorInfo>): ErrorInfo => ({
  name: 'PurchaseServiceError',
  code: 'x',
  message: 'x',
  status: 400,
  outcome: 'rejected',
  retryable: false,
  retryAfterMs: null,
  ...over,
});

/**
 * Every kind of failed call, as `errorInfo` classifies them. `reached`: whether that confirm
 * may have reached the service — only a refused connection, a 429 and `transaction_pending`
 * (the service turned this very request away) prove it did not.
 */
const NEVER_REACHED = new Set(['connectionRefused', 'tooMany', 'pending']);
const ERRORS: Record<string, ErrorInfo> = {
  connectionRefused: error({
    name: 'TransportError',
    code: 'connection_refused',
    status: null,
    outcome: 'not_sent',
    retryable: true,
  }),
  tooMany: error({ code: 'rate_limited', status: 429, retryable: true, retryAfterMs: 2000 }),
  pending: error({ code: 'transaction_pending', status: 409, retryable: true }),
  timeout: error({
    name: 'TransportError',
    code: 'timeout',
    status: null,
    outcome: 'unknown',
    retryable: true,
  }),
  unavailable: error({ code: 'provider_unavailable', status: 502, outcome: 'unknown', retryable: true }),
  refused: error({ code: 'meter_blocked', status: 422 }),
  unauthorised: error({ code: 'invalid_token', status: 401 }),
  proxy: error({ code: 'http_404', status: 404 }),
  notFound: error({ code: 'transaction_not_found', status: 404 }),
  retriesDisabled: error({ code: 'retries_disabled', status: 403 }),
};
const CONFIRM_ERRORS = [
  'connectionRefused',
  'tooMany',
  'pending',
  'timeout',
  'unavailable',
  'refused',
  'unauthorised',
];
const RETRY_ERRORS = ['notFound', 'retriesDisabled', 'refused', 'unavailable', 'tooMany', 'proxy', 'timeout'];

/** The moments a guard tells apart, from what the context knows. */
function moments(c: PurchaseContext): Record<string, string> {
  const sent = c.confirmSentAt ? Date.parse(c.confirmSentAt) : T0;
  const deadline = c.reconcileDeadlineAt ? Date.parse(c.reconcileDeadlineAt) : sent + settings.deadlineMs;
  return {
    inFlight: iso(sent + 1000),
    afterFlight: iso(sent + settings.confirmTimeoutMs + settings.inFlightMarginMs + 1000),
    pastDeadline: iso(deadline + 1000),
  };
}

/** One event per distinct next state (simple paths over the state graph, not over every answer). */
function representatives(s: PurchaseSnapshot): PurchaseEvent[] {
  const seen = new Map<string, PurchaseEvent>();
  for (const e of events(s)) {
    if (!s.can(e)) continue;
    const [next] = transition(purchaseMachine, s, e);
    const key = serializeState(next);
    if (key !== serializeState(s) && !seen.has(key)) seen.set(key, e);
  }
  return [...seen.values()];
}

/** Every answer the world can give in the machine's current state. */
function events(s: PurchaseSnapshot): PurchaseEvent[] {
  const m = moments(s.context);
  const times = Object.values(m);
  const random = 0.5;
  const ok = (['SUCCESSFUL', 'FAILED', 'PENDING'] as const).map((status) => tx(status));
  return [
    { type: 'CONFIRM_START', at: m.inFlight },
    ...ok.map((t) => ({ type: 'CONFIRM_OK' as const, tx: t, at: m.inFlight, random })),
    ...CONFIRM_ERRORS.map((e) => ({
      type: 'CONFIRM_ERR' as const,
      error: ERRORS[e],
      at: m.inFlight,
      random,
    })),
    { type: 'CONFIRM_LOST', at: m.inFlight },
    { type: 'RECONCILE_START', at: m.inFlight },
    ...times.flatMap((at) => [
      ...ok.map((t) => ({ type: 'RETRY_OK' as const, tx: t, at, random })),
      ...RETRY_ERRORS.map((e) => ({ type: 'RETRY_ERR' as const, error: ERRORS[e], at, random })),
    ]),
    { type: 'RECHECK_OK', tx: tx('SUCCESSFUL'), at: m.afterFlight },
  ];
}

/** A state as far as the properties care: the state, the confirm count, the not-found count, attempts seen. */
const serializeState = (s: PurchaseSnapshot) =>
  JSON.stringify([s.value, s.context.confirmAttempts, s.context.notFoundCount]);

const input: PurchaseContext = {
  settings,
  debitedAccountId: 1001,
  managedRetryUntil: null,
  confirmSentAt: null,
  confirmInFlightUntil: null,
  recheckUntil: null,
  confirmEndedAt: null,
  confirmAttempts: 0,
  reconcileAttempts: 0,
  notFoundCount: 0,
  reconcileDeadlineAt: null,
  result: null,
  failure: null,
  lastError: null,
  settledAt: null,
  delayMs: null,
};

const serialize = (s: unknown) => serializeState(s as PurchaseSnapshot);
const options = { input, events, serializeState: serialize };
const locales = loadLocales();

// Every path's record in this file's PostgreSQL schema, each a purchase of its own.
let store: PurchaseStore;
beforeAll(async () => {
  store = await freshPurchaseStore();
});

type Step = { event: PurchaseEvent; state: PurchaseSnapshot };
/** A path's steps without the first, which is the machine's own start (`xstate.init`). */
const stepsOf = (path: { steps: Array<{ event: unknown; state: unknown }> }) =>
  (path.steps as Step[]).filter((s) => !s.event.type.startsWith('xstate.'));

/** Which error a CONFIRM_ERR carries (by identity: the events reuse the table's objects). */
const errorName = (e: ErrorInfo) => Object.entries(ERRORS).find(([, v]) => v === e)?.[0] ?? '?';

/** The outcome a settled record leaves: what the subscriber is told, or where operators see it. */
async function obligation(settled: PurchaseRecord): Promise<string> {
  const sms = composeOutcomeSms(settled, locales).filter((m) => m.to === settled.intent.beneficiaryMsisdn);
  switch (settled.state) {
    case 'succeeded':
      expect(settled.result?.rawToken).toBe(TOKEN);
      expect(sms).toHaveLength(1);
      expect(sms[0].message).toContain(TOKEN);
      return 'token delivered';
    case 'failed':
      expect(settled.failure).not.toBeNull();
      expect(sms).toHaveLength(1);
      expect(sms[0].message).not.toContain(TOKEN);
      return 'failure told';
    case 'needs_attention': {
      expect(settled.failure?.charged).toBe('unknown');
      const listed = await store.listByState('needs_attention', { limit: 1000 });
      expect(listed.map((r) => r.id)).toContain(settled.id);
      return 'needs_attention listed';
    }
    default:
      throw new Error(`${settled.state} is not settled`);
  }
}

/**
 * Run one path as the lifecycle would: each event through `decide()` on the stored record
 * (which must decide what the machine decided), each decision written with the store's
 * compare-and-set. Returns the obligation met at the end, or null when the path ends unsettled.
 */
async function run(steps: Step[]): Promise<string | null> {
  let current = (await store.create(record())).record;
  let mayHaveReached = false;
  let confirms = 0;
  for (const { event, state } of steps) {
    if (event.type === 'CONFIRM_START') {
      // Sent again only when every earlier confirm provably never reached the service.
      expect(mayHaveReached).toBe(false);
      confirms += 1;
      mayHaveReached = true;
    }
    if (event.type === 'CONFIRM_ERR' && NEVER_REACHED.has(errorName(event.error))) mayHaveReached = false;
    const decision = decide(current, event, settings);
    expect(decision?.to).toBe(state.value);
    const written = await store.transition(
      current.id,
      [current.state],
      decision!.to,
      current.version,
      decision!.patch,
    );
    if (!written.ok) throw new Error(`compare-and-set refused: ${written.conflict.reason}`);
    current = written.record;
  }
  expect(confirms).toBeLessThanOrEqual(settings.maxConfirmAttempts);
  expect(current.confirmAttempts).toBe(confirms);
  return SETTLED_STATES.includes(current.state) ? obligation(current) : null;
}

const adjacency = getAdjacencyMap(purchaseMachine, options) as unknown as Record<
  string,
  { state: PurchaseSnapshot; transitions: Record<string, { event: PurchaseEvent; state: PurchaseSnapshot }> }
>;
const shortest = new Map(
  getShortestPaths(purchaseMachine, options).map((p) => [serialize(p.state), stepsOf(p)]),
);

it('the graph: every state can still settle (no state where a purchase is stuck for good)', () => {
  const settles = new Set(
    Object.keys(adjacency).filter((k) => SETTLED_STATES.includes(adjacency[k].state.value as PurchaseState)),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const [k, { transitions }] of Object.entries(adjacency))
      if (!settles.has(k) && Object.values(transitions).some((t) => settles.has(serialize(t.state)))) {
        settles.add(k);
        grew = true;
      }
  }
  expect(Object.keys(adjacency).filter((k) => !settles.has(k))).toEqual([]);
  counts.states = Object.keys(adjacency).length;
});

const counts = { states: 0, simplePaths: 0, transitions: 0, settled: {} as Record<string, number> };
afterAll(() => {
  process.stdout.write(
    `Purchase lifecycle machine: ${counts.states} states, ${counts.simplePaths} simple paths, ` +
      `${counts.transitions} transitions (state × answer) each run as a path; ` +
      `settled ends: ${JSON.stringify(counts.settled)}\n`,
  );
});

it('every simple path: confirm at most once, and every settled end has its outcome', async () => {
  const paths = getSimplePaths(purchaseMachine, { ...options, events: representatives });
  expect(paths.length).toBeGreaterThan(50);
  for (const path of paths) {
    const outcome = await run(stepsOf(path));
    if (outcome) counts.settled[outcome] = (counts.settled[outcome] ?? 0) + 1;
  }
  counts.simplePaths = paths.length;
  // Every kind of end is reached.
  expect(Object.keys(counts.settled).sort()).toEqual([
    'failure told',
    'needs_attention listed',
    'token delivered',
  ]);
});

it('every transition (each answer in each state), reached by its shortest path and run to the end', async () => {
  let runs = 0;
  for (const [key, { state, transitions }] of Object.entries(adjacency)) {
    // Self-loops included: asking again while reconciling is a transition too.
    for (const { event, state: next } of Object.values(transitions)) {
      if (!state.can(event)) continue;
      // Then the shortest way on to a settled state, when `next` is not one.
      const onward = shortestToSettled(next);
      await run([...shortest.get(key)!, { event, state: next }, ...onward]);
      runs += 1;
    }
  }
  counts.transitions = runs;
  expect(runs).toBeGreaterThan(100);
});

/** The shortest continuation from `from` to a settled state (breadth-first over the adjacency map). */
function shortestToSettled(from: PurchaseSnapshot): Step[] {
  const queue: Array<{ key: string; steps: Step[] }> = [{ key: serialize(from), steps: [] }];
  const seen = new Set([queue[0].key]);
  while (queue.length > 0) {
    const { key, steps } = queue.shift()!;
    const node = adjacency[key];
    if (SETTLED_STATES.includes(node.state.value as PurchaseState)) return steps;
    for (const { event, state } of Object.values(node.transitions)) {
      const k = serialize(state);
      if (seen.has(k) || !node.state.can(event)) continue;
      seen.add(k);
      queue.push({ key: k, steps: [...steps, { event, state }] });
    }
  }
  throw new Error(`no way to settle from ${serialize(from)}`);
}
