import { getAdjacencyMap } from '@xstate/graph';
import { createActor, initialTransition, toPromise, type AnyActorLogic } from 'xstate';
import {
  dialogueActors,
  dialogueScreen,
  ussdMachine,
  type UssdContext,
} from '../../machines/ussd-session.machine';
import { ELEC_INTENT, INPUT, record, serviceError, services } from '../../machines/ussd/test-kit';
import { purchaseView } from '../../src/purchases/history';
import { dialogueKey } from '../../machines/ussd/purchase';
import { SETTLED_TAG, type DialogueEvent } from '../../src/ussd/engine/dialogue';
import { inertScope } from '../../src/xstate/internals';
import { SpendRefusedError } from '../../src/spend/rules';
import { TransportError } from '../../src/vas/errors';

/**
 * Every path of the USSD dialogue machine, generated with @xstate/graph over every option of
 * every screen, typed answers (one the screen accepts, two it refuses), Back, Home, the engine's
 * TIMEOUT, and every way each invoked service can end (its real answer, computed by the real
 * actors over the test kit's services; a transport error; a bug; for the quote every kind of
 * refusal; for the order a spending-rule refusal). States are told apart by what the
 * invariants care about (the state, the product, what was gathered, the tries, the stall, the
 * quote and the order), which keeps the graph finite: a few thousand states.
 *
 * Simple paths of that graph are too many to run (they grow exponentially with its cycles:
 * Back, Home, retries), so every state is reached by its shortest path and every transition
 * (each event in each state) is taken once. Both run on the machine the way the engine runs
 * it: restored from its JSON snapshot before every event. The shortest paths form a tree (each
 * is its parent's plus one step), replayed once per edge: a prefix's replay is the parent's. Invariants on every step: no order
 * without a quote, the order is the quoted intent under the dialogue's one key (a retry finds
 * the same purchase); a closing screen is final and nothing moves it; a waiting screen can be
 * answered (options or typed text).
 */

type Snap = ReturnType<typeof ussdMachine.resolveState>;
type AnyEvent = DialogueEvent | { type: string; output?: unknown; error?: unknown; actorId?: string };

/** Version 7's data: a saved meter with a purchase still in progress, and the "send the token to" question. */
const SAVED = { productType: 'ELECTRICITY' as const, identifier: '04111111111', name: 'KABELO M' };
const { services: svc } = services({
  askTokenRecipient: true,
  savedMeters: async () => [SAVED],
  // A stub that keeps its one meter: the list a removal answers is the same (as before the list came back with it).
  removeMeter: async () => [SAVED],
  purchasesInProgress: async (msisdn, identifier) =>
    identifier === SAVED.identifier
      ? [
          purchaseView(
            {
              ...record(
                'p-7',
                { ...ELEC_INTENT, subscriberIdentifier: identifier },
                '2026-11-21T08:00:00.000Z',
              ),
              state: 'confirming',
            },
            msisdn,
          ),
        ]
      : [],
});
const actors = dialogueActors(svc, () => {});
const machine = ussdMachine.provide({ actors });

/** How an invoked service can fail, besides answering. */
const FAILURES: Record<string, unknown[]> = {
  any: [new TransportError('unknown', 'socket hang up', 'r-1'), new Error('a bug')],
  quote: [
    serviceError('meter_not_found'),
    serviceError('amount_below_minimum'),
    serviceError('provider_error'),
    serviceError('provider_unavailable', { status: 502, retryable: true, type: 'provider_error' }),
    new SpendRefusedError({ code: 'spend_blocked' }),
  ],
  order: [new SpendRefusedError({ code: 'spend_blocked' })],
};

/** Typed answers: one the screen accepts (by what it asks for), and ones it refuses. */
function texts(c: UssdContext, state: string): string[] {
  const valid: Record<string, string> = {
    phone: '26771234567',
    beneficiary: '26771234569',
    customer: '26771234568',
    amount: '100',
    identifier:
      c.purchase.productType === 'WATER'
        ? '1234567890'
        : c.purchase.productType === 'AIRTIME'
          ? '26771234567'
          : '04123456789',
  };
  return [...(valid[state] ? [valid[state]] : []), 'abc', '99999999'];
}

/** The real actors' answers, by source and input, computed before the traversal that needs them. */
const answers = new Map<string, unknown>();
const missing = new Map<string, { src: string; input: unknown }>();

function events(s: Snap): AnyEvent[] {
  const out: AnyEvent[] = [];
  for (const [id, child] of Object.entries(s.children)) {
    const ref = child as unknown as { src: string; getSnapshot(): { input: unknown } };
    const src = ref.src;
    const input = ref.getSnapshot().input;
    const key = `${src}:${JSON.stringify(input)}`;
    if (answers.has(key))
      out.push({ type: `xstate.done.actor.${id}`, output: answers.get(key), actorId: id });
    else missing.set(key, { src, input });
    for (const error of [...FAILURES.any, ...(FAILURES[src] ?? [])])
      out.push({ type: `xstate.error.actor.${id}`, error, actorId: id });
  }
  if (Object.keys(s.children).length > 0) out.push({ type: 'TIMEOUT' });
  if (s.hasTag(SETTLED_TAG) && s.status === 'active') {
    for (const option of dialogueScreen(s.context)?.options ?? [])
      out.push({ type: 'CHOOSE', optionId: option.id });
    out.push({ type: 'CHOOSE', optionId: 'no-such-option' });
    for (const text of texts(s.context, String(s.value))) out.push({ type: 'TEXT', text });
    out.push({ type: 'BACK' }, { type: 'HOME' });
  }
  return out;
}

/** A dialogue state as far as the invariants care (the purchase gathered, tries, stall, outcome). */
function serializeState(s: Snap): string {
  const c = s.context;
  return JSON.stringify([
    s.value,
    c.purchase.productType,
    c.purchase.airtimeFor,
    c.purchase.identifier !== null,
    c.purchase.amountMinor !== null,
    c.purchase.identifierTries,
    c.purchase.amountTries,
    c.purchase.backAsked,
    c.purchase.quote !== null,
    c.purchaseId !== null,
    c.purchase.stalled,
    c.language !== INPUT.language,
    // v7: who gets the token changes the intent; the saved meters, a purchase in progress and the
    // purchase chosen only change what a screen shows (counting them would multiply the graph).
    c.purchase.tokenTo === 'other',
  ]);
}

const serializeEvent = (e: unknown) => {
  const { output: _output, error, ...rest } = e as AnyEvent & { output?: unknown; error?: unknown };
  return JSON.stringify({ ...rest, error: error === undefined ? undefined : String(error) });
};
const traversal = {
  input: INPUT,
  events: (s: unknown) => events(s as Snap) as DialogueEvent[],
  serializeState: (s: unknown) => serializeState(s as Snap),
  serializeEvent,
};

type Node = { state: Snap; transitions: Record<string, { event: AnyEvent; state: Snap }> };

/** The graph; whenever a service answer is missing, compute it with the real actor and traverse again. */
async function graph(): Promise<Record<string, Node>> {
  for (let round = 0; round < 10; round += 1) {
    missing.clear();
    const adjacency = getAdjacencyMap(machine, traversal) as unknown as Record<string, Node>;
    if (missing.size === 0) return adjacency;
    for (const [key, { src, input }] of missing) {
      const logic = (actors as Record<string, AnyActorLogic>)[src];
      answers.set(key, await toPromise(createActor(logic, { input }).start()));
    }
  }
  throw new Error('service answers kept appearing');
}

type Step = { event: AnyEvent; state: Snap };
const counts = {
  states: 0,
  paths: 0,
  steps: 0,
  replayed: 0,
  transitions: 0,
  orders: 0,
  ends: {} as Record<string, number>,
};

afterAll(() => {
  process.stdout.write(
    `USSD dialogue machine: ${counts.states} states; ${counts.paths} shortest paths (${counts.steps} steps, ${counts.replayed} replayed), ` +
      `${counts.transitions} transitions each taken once, ${counts.orders} of them into an order; ` +
      `closing states: ${JSON.stringify(counts.ends)}\n`,
  );
});

/**
 * One step as the engine takes it (dialogue-runner.ts): the machine's transition in one inert
 * scope, its effects not carried out. XState's own `transition()` builds a whole actor per call,
 * a fifth of this file's CPU.
 */
const scope = inertScope(() => undefined);
const take = (s: Snap, event: AnyEvent): Snap => machine.transition(s, event as DialogueEvent, scope);

/**
 * `expect(actual).toBe(expected)`, built only when it fails: an expect() costs ~0.1 ms (a matcher
 * set and an error each), and the steps below check about 60,000 of them.
 */
function expectToBe(actual: unknown, expected: unknown): void {
  if (!Object.is(actual, expected)) expect(actual).toBe(expected);
}

/** The engine's restore: persisted snapshot → JSON → the machine's state again (settled snapshots only). */
function restored(s: Snap): Snap {
  if (!s.hasTag(SETTLED_TAG) || s.status !== 'active') return s;
  const persisted = JSON.parse(JSON.stringify(machine.getPersistedSnapshot(s))) as Snap;
  return machine.resolveState({ value: persisted.value, context: persisted.context as UssdContext });
}

/** The invariants of one step `before` → `after`. Returns whether it entered an order. */
function checkStep(before: Snap, after: Snap): boolean {
  const c = after.context;
  let ordered = false;
  // No order without a quote; the order is the quoted intent, under the dialogue's one key.
  if (after.value === 'ordering' && before.value !== 'ordering') {
    expect(c.purchase.quote).not.toBeNull();
    const order = Object.values(after.children)[0] as unknown as { getSnapshot(): { input: unknown } };
    const input = order.getSnapshot().input as { intent: unknown; key: string };
    expect(input.intent).toEqual(c.purchase.quote!.intent);
    expect(input.key).toBe(dialogueKey(c));
    expect(input.key).toBe(`${INPUT.aggregator}:${INPUT.sessionId}:${INPUT.startedAt}`);
    ordered = true;
  }
  // A closing screen ends the dialogue.
  const screen = dialogueScreen(c);
  if (after.status === 'done') expectToBe(screen?.final, true);
  if (screen?.final && after.hasTag(SETTLED_TAG)) expectToBe(after.status, 'done');
  // A waiting screen can be answered: options or typed text.
  if (after.hasTag(SETTLED_TAG) && after.status === 'active')
    expectToBe((screen?.options?.length ?? 0) > 0 || screen?.expectsText === true, true);
  return ordered;
}

/** Every event a subscriber or the engine could send, for checking that a closing screen stays closed. */
const ANY_INPUT: DialogueEvent[] = [
  { type: 'CHOOSE', optionId: 'buy' },
  { type: 'CHOOSE', optionId: '1' },
  { type: 'TEXT', text: '1' },
  { type: 'BACK' },
  { type: 'HOME' },
  { type: 'TIMEOUT' },
];

let adjacency: Record<string, Node>;
beforeAll(async () => {
  adjacency = await graph();
  counts.states = Object.keys(adjacency).length;
}, 120_000);

type Tree = { key: string; parent: string | null; step: Step | null; depth: number };

/**
 * The shortest path to every state, breadth first from the start over the graph already built
 * (what getShortestPaths computes, without traversing the machine a second time): in the order
 * visited, each state after its parent.
 */
function shortestPathTree(): Tree[] {
  const start = serializeState(initialTransition(machine, INPUT)[0] as Snap);
  const order: Tree[] = [{ key: start, parent: null, step: null, depth: 0 }];
  const seen = new Set([start]);
  for (let i = 0; i < order.length; i += 1) {
    for (const step of Object.values(adjacency[order[i].key].transitions)) {
      const key = serializeState(step.state);
      if (seen.has(key)) continue;
      seen.add(key);
      order.push({ key, parent: order[i].key, step, depth: order[i].depth + 1 });
    }
  }
  return order;
}

it('every state, reached by its shortest path replayed as the engine runs it', () => {
  const tree = shortestPathTree();
  expect(tree.length).toBe(counts.states);
  // The replayed state at the end of each state's path; a child's path replays its parent's, then one step.
  const replayed = new Map<string, Snap>();
  for (const { key, parent, step, depth } of tree) {
    counts.steps += depth;
    if (parent === null) {
      replayed.set(key, adjacency[key].state);
      continue;
    }
    const live = replayed.get(parent)!;
    const next = take(restored(live), step!.event);
    expectToBe(serializeState(next), key);
    checkStep(live, next);
    replayed.set(key, next);
    counts.replayed += 1;
    if (next.status === 'done') {
      for (const e of ANY_INPUT) expectToBe(serializeState(take(next, e)), key);
      counts.ends[String(next.value)] = (counts.ends[String(next.value)] ?? 0) + 1;
    }
  }
  counts.paths = tree.length;
  // Every closing screen is reached, the purchase's among them.
  expect(Object.keys(counts.ends)).toEqual(
    expect.arrayContaining([
      'done',
      'cancelled',
      'refused',
      'tryLater',
      'unavailable',
      'tooManyTries',
      'resent',
      'help',
      'reported',
      'notAgain',
    ]),
  );
}, 120_000);

it('every transition (each event in each state), taken once from the restored snapshot', () => {
  for (const node of Object.values(adjacency)) {
    // Restored once for all its events: a step leaves the snapshot it starts from as it was
    // (XState's transitions are pure; the graph took all of a state's events from one object too).
    const from = restored(node.state);
    for (const { event, state } of Object.values(node.transitions)) {
      const next = take(from, event);
      expectToBe(serializeState(next), serializeState(state));
      if (checkStep(node.state, next)) counts.orders += 1;
      counts.transitions += 1;
    }
  }
  expect(counts.orders).toBeGreaterThan(0);
}, 120_000);
