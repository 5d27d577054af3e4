import {
  createActor,
  fromTransition,
  waitFor,
  type AnyActorRef,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type ExecutableActionObject,
} from 'xstate';
import { isService, SETTLED_TAG, type DialogueEvent, type DialogueInput } from './dialogue';

/** The machine did not settle within the hop budget, even after TIMEOUT. */
export class DialogueTimeoutError extends Error {
  constructor() {
    super('dialogue did not settle within the hop budget');
  }
}

/** The dialogue machine failed (a snapshot it cannot restore, a bug): not the store's fault. */
export class DialogueError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** What the machine's context holds that the engine reads (its screen: `HopEngineOptions.screenOf`). */
export interface DialogueContext {
  language?: string;
}

/** A stored dialogue to continue, and the shared context fields it left out (put back before the machine runs). */
export interface StoredDialogue {
  snapshot: unknown;
  shared?: Readonly<Record<string, unknown>>;
}

/** Where a hop's dialogue starts: a stored snapshot, or a fresh dialogue. */
export type DialogueStart = StoredDialogue | { input: DialogueInput };

/** A settled dialogue, after one hop. */
export interface DialogueStep {
  /** The snapshot to store: without the shared fields when `shared` is set. */
  persisted: unknown;
  /** The shared fields as the machine left them (the objects themselves), left out of `persisted`. */
  shared?: Record<string, unknown>;
  value: unknown;
  done: boolean;
  context: DialogueContext;
}

/**
 * Context fields (objects many dialogues hold alike) stored apart from the snapshot
 * (src/session/shared-context.ts). They are put into the restored context and taken out of the
 * one persisted, rather than merged in before the restore and split off after: XState walks the
 * whole context both ways (looking for actor references), and these fields are most of it.
 */
export type SharedKeys = readonly string[];

/**
 * Runs the machine for one hop: from `start`, feeding `event` (or none), until it settles. At
 * `deadline - graceMs` it sends TIMEOUT (the machine answers with its retry screen) and waits
 * the grace. The actor is stopped before returning, so nothing keeps running after the hop.
 * Throws DialogueTimeoutError, or DialogueError for the machine's own failures.
 */
export async function runDialogue(
  machine: AnyStateMachine,
  start: DialogueStart,
  event: DialogueEvent | null,
  deadline: { at: number; graceMs: number; now: () => number },
  sharedKeys: SharedKeys = [],
): Promise<DialogueStep> {
  if ('snapshot' in start && event) {
    const stepped = stepPurely(machine, start, event, sharedKeys);
    if (stepped) return stepped;
  }
  return (
    (await runServed(machine, start, event, deadline, sharedKeys)) ??
    runLive(machine, start, event, deadline, sharedKeys)
  );
}

/**
 * Puts the shared fields into a snapshot just restored, before anything has seen it: a new
 * context built by one object literal. V8 keeps such an object in fast mode, where adding fields
 * to the existing one would turn it into a dictionary, and every XState `assign` copying from a
 * dictionary costs far more (measured: 8.4 µs against 0.45 µs for this context).
 */
function putShared(snapshot: AnyMachineSnapshot, shared: StoredDialogue['shared']): void {
  if (shared) (snapshot as { context: unknown }).context = { ...snapshot.context, ...shared };
}

/** A settled snapshot as the engine stores and shows it, the shared fields apart when all are there. */
function stepOf(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  sharedKeys: SharedKeys,
): DialogueStep {
  const context = (snapshot.context ?? {}) as Record<string, unknown>;
  const view = {
    value: snapshot.value,
    done: snapshot.status === 'done',
    context: context as DialogueContext,
  };
  if (
    sharedKeys.length === 0 ||
    sharedKeys.some((key) => typeof context[key] !== 'object' || context[key] === null)
  )
    return { persisted: persistedOf(machine, snapshot, context), ...view };
  const rest: Record<string, unknown> = {};
  const shared: Record<string, unknown> = {};
  for (const key in context) (sharedKeys.includes(key) ? shared : rest)[key] = context[key];
  return { persisted: persistedOf(machine, snapshot, rest), shared, ...view };
}

/** What XState persists of the context is left to {@link persistedOf}. */
const NO_CONTEXT: Readonly<Record<string, never>> = Object.freeze({});

/**
 * XState's persisted form of `snapshot`, with `context` stored as it is. XState would walk the
 * context for actor references to replace; a dialogue's context holds none (machines/README.md),
 * so the walk finds nothing and returns the same objects. On Node 24 that walk (a for-in over
 * objects of many shapes) is optimised and thrown away again on nearly every hop: 22% of the
 * engine's CPU, measured.
 */
function persistedOf(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  context: Record<string, unknown>,
): unknown {
  // A new object of XState's: its context (the empty one) is replaced in place.
  const persisted = machine.getPersistedSnapshot({
    ...snapshot,
    context: NO_CONTEXT,
  } as AnyMachineSnapshot) as unknown as { context: unknown };
  persisted.context = context;
  return persisted;
}

/**
 * The machine snapshot a stored snapshot was persisted from by a pure step, for as long as the
 * stored object lives (the session store keeps the last record of each live dialogue in
 * process): the next hop continues from it rather than restoring the stored form, which walks
 * the whole context again. Snapshots are immutable; a settled one holds no running child.
 */
const settledSnapshots = new WeakMap<object, AnyMachineSnapshot>();

/** A settled pure step, remembered as the snapshot to continue its stored form from. */
function pureStepOf(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  sharedKeys: SharedKeys,
): DialogueStep {
  const step = stepOf(machine, snapshot, sharedKeys);
  if (
    snapshot.status === 'active' &&
    !hasChildren(snapshot) &&
    typeof step.persisted === 'object' &&
    step.persisted
  )
    settledSnapshots.set(step.persisted, snapshot);
  return step;
}

/** The snapshot a stored dialogue continues from: the one it was persisted from, else restored. */
function continued(
  machine: AnyStateMachine,
  start: StoredDialogue,
  scope: AnyActorScope,
): AnyMachineSnapshot {
  const kept =
    typeof start.snapshot === 'object' && start.snapshot !== null
      ? settledSnapshots.get(start.snapshot)
      : undefined;
  if (kept && kept.machine === machine) return kept;
  const restored = machine.restoreSnapshot(start.snapshot as never, scope) as AnyMachineSnapshot;
  putShared(restored, start.shared);
  return restored;
}

/** The hop on a live actor: restored (or started), fed the event, settled, persisted, stopped. */
async function runLive(
  machine: AnyStateMachine,
  start: DialogueStart,
  event: DialogueEvent | null,
  deadline: { at: number; graceMs: number; now: () => number },
  sharedKeys: SharedKeys,
): Promise<DialogueStep> {
  let actor: AnyActorRef;
  try {
    if ('snapshot' in start) {
      actor = createActor(machine, { snapshot: start.snapshot as never });
      putShared(actor.getSnapshot() as AnyMachineSnapshot, start.shared);
    } else actor = createActor(machine, { input: start.input });
    // An observer for errors: without one XState rethrows a machine error globally.
    actor.subscribe({ error: () => undefined });
    actor.start();
  } catch (err) {
    throw new DialogueError(err);
  }
  try {
    if (event) actor.send(event);
    await settle(actor, deadline);
    return stepOf(machine, actor.getSnapshot() as AnyMachineSnapshot, sharedKeys);
  } catch (err) {
    throw err instanceof DialogueTimeoutError ? err : new DialogueError(err);
  } finally {
    actor.stop();
  }
}

/**
 * The effects a pure step asked for (starting an invocation, a delayed event): collected, never
 * carried out. Steps are synchronous, so one list serves every hop.
 */
const effects: ExecutableActionObject[] = [];

/**
 * What XState needs to compute a transition without an actor. XState's own `transition()` builds
 * a whole actor per call (and runs the machine's initial state in it), which costs more than the
 * live actor it replaces; this one is built once. Its owner is an inert actor that never starts.
 */
let inertScope: AnyActorScope | undefined;

function pureScope(): AnyActorScope {
  if (!inertScope) {
    const self = createActor(fromTransition((state: null) => state, null));
    inertScope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => undefined,
      defer: () => undefined,
      emit: () => undefined,
      stopChild: () => undefined,
      actionExecutor: (action) => void effects.push(action),
    };
  }
  return inertScope;
}

/**
 * The hop without an actor, when it can be: the stored snapshot restored and the event applied by
 * XState's pure functions. That answers when the machine settles with nothing to carry out (no
 * service to call, nothing running): most hops read a choice and show the next screen. Otherwise
 * null, and the hop runs on a live actor from the same start, so the step computed here is only
 * thrown away, never half applied; so is a step that fails (the live actor then fails the same
 * way, as the engine knows it). The machine's actions only update its context
 * (machines/ussd/actions.ts), so a settled step has no effect to lose. Exported for tests.
 */
export function stepPurely(
  machine: AnyStateMachine,
  start: StoredDialogue,
  event: DialogueEvent,
  sharedKeys: SharedKeys = [],
): DialogueStep | null {
  const move = moveOf(machine, start.snapshot, event);
  if (move !== undefined && handsOver.get(move) === true) return null;
  const stepped = tryPurely(machine, start, event, sharedKeys);
  if (move !== undefined) remember(move, stepped === null);
  return stepped;
}

/**
 * Per machine, state and event (a choice by its option), whether the last pure step had to hand
 * over to a live actor: the move that calls a service (the quote, the Buy) goes straight to one
 * instead of being computed twice. Only a hint: a pure step is always checked, and the live actor
 * is always right.
 */
const handsOver = new Map<string, boolean>();
/** Moves are bounded by the machine (states × options); the bound only guards against a bug. */
const MAX_MOVES = 4096;
const machineIds = new WeakMap<AnyStateMachine, number>();
let machinesSeen = 0;

function moveOf(machine: AnyStateMachine, stored: unknown, event: DialogueEvent): string | undefined {
  const value = (stored as { value?: unknown } | null)?.value;
  if (typeof value !== 'string') return undefined;
  let id = machineIds.get(machine);
  if (id === undefined) machineIds.set(machine, (id = ++machinesSeen));
  return event.type === 'CHOOSE' ? `${id} ${value} CHOOSE ${event.optionId}` : `${id} ${value} ${event.type}`;
}

function remember(move: string, live: boolean): void {
  if (handsOver.size >= MAX_MOVES && !handsOver.has(move)) handsOver.clear();
  handsOver.set(move, live);
}

function tryPurely(
  machine: AnyStateMachine,
  start: StoredDialogue,
  event: DialogueEvent,
  sharedKeys: SharedKeys,
): DialogueStep | null {
  const first = firstStep(machine, start, event);
  if (!first || first.asked.length > 0 || hasChildren(first.snapshot) || !isSettled(first.snapshot))
    return null;
  return pureStepOf(machine, first.snapshot, sharedKeys);
}

/**
 * The hop's start (stored or fresh) with its event applied by XState's pure functions, and the
 * effects it asked for (collected, not carried out); null when that cannot be done purely: a
 * stored dialogue with a service call still running (its hop ran out of time; a live actor
 * restarts it), a failing step (the live actor decides what that comes to, and reports it as its
 * own error), or a machine that stopped or failed.
 */
function firstStep(
  machine: AnyStateMachine,
  start: DialogueStart,
  event: DialogueEvent | null,
): { snapshot: AnyMachineSnapshot; asked: readonly ExecutableActionObject[] } | null {
  const scope = pureScope();
  effects.length = 0;
  try {
    let snapshot: AnyMachineSnapshot;
    if ('snapshot' in start) {
      snapshot = continued(machine, start, scope);
      if (hasChildren(snapshot)) return null;
      if (event) snapshot = machine.transition(snapshot, event, scope);
    } else snapshot = machine.getInitialSnapshot(scope, start.input) as AnyMachineSnapshot;
    if (snapshot.status !== 'active' && snapshot.status !== 'done') return null;
    return { snapshot, asked: effects.length > 0 ? effects.splice(0) : NOTHING_ASKED };
  } catch {
    return null;
  } finally {
    // The scope is shared: nothing collected may reach the next hop.
    effects.length = 0;
  }
}

/** What a step that asked for nothing asked for (most steps): no array per hop. */
const NOTHING_ASKED: readonly ExecutableActionObject[] = Object.freeze([]);

/** An invocation XState would start: the child's id, its reference (never started) and input. */
interface SpawnParams {
  id: string;
  actorRef?: AnyActorRef & { logic?: { config?: unknown } };
  input?: unknown;
}

/** The effect starts a service call (`fromService`) that the engine can run itself. */
function isServiceCall(action: ExecutableActionObject): boolean {
  return action.type === 'xstate.spawnChild' && isService((action.params as SpawnParams).actorRef?.logic);
}

/** What the engine runs itself: service calls started, and calls stopped (the state was left). */
const isServed = (action: ExecutableActionObject) =>
  isServiceCall(action) || action.type === 'xstate.stopChild';

/** A service call in flight, answering with the event XState would send its parent. */
interface Call {
  controller: AbortController;
  answer: Promise<{ id: string; event: { type: string } }>;
}

/**
 * The hop without an actor when it calls services: the machine stepped by XState's pure
 * functions, and each service it invokes (a `fromService` promise) run by the engine with what
 * XState would give it — its input and an abort signal — and its result fed back as XState's own
 * `xstate.done.actor.<id>` or `xstate.error.actor.<id>` event, until the machine settles. TIMEOUT
 * and the deadline as on a live actor. Null, before anything ran, when the step asks for anything
 * else (then the live actor does the hop); once a service was called there is no handing over:
 * a failure is the hop's, as on a live actor.
 */
async function runServed(
  machine: AnyStateMachine,
  start: DialogueStart,
  event: DialogueEvent | null,
  deadline: { at: number; graceMs: number; now: () => number },
  sharedKeys: SharedKeys,
): Promise<DialogueStep | null> {
  const first = firstStep(machine, start, event);
  if (!first || !first.asked.some(isServiceCall) || !first.asked.every(isServed)) return null;
  const scope = pureScope();
  let { snapshot, asked } = first;

  const calls = new Map<string, Call>();
  let timeoutAt = deadline.at - deadline.graceMs;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      for (const action of asked) carryOut(action, calls, scope);
      if (snapshot.status === 'error') throw new DialogueError(snapshot.error);
      if (isSettled(snapshot)) return pureStepOf(machine, snapshot, sharedKeys);
      const expired = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), Math.max(1, timeoutAt - deadline.now()));
      });
      const next = await Promise.race([...[...calls.values()].map((call) => call.answer), expired]);
      clearTimeout(timer);
      let fed: { type: string };
      if (next === null) {
        if (timedOut) throw new DialogueTimeoutError();
        timedOut = true;
        timeoutAt = deadline.at;
        fed = { type: 'TIMEOUT' };
      } else {
        calls.delete(next.id);
        // A call whose state was left meanwhile (TIMEOUT) answers nobody.
        if (!(next.id in snapshot.children)) {
          asked = [];
          continue;
        }
        fed = next.event;
      }
      try {
        snapshot = machine.transition(snapshot, fed as never, scope);
        asked = effects.splice(0);
      } finally {
        effects.length = 0;
      }
      const unserved = asked.find((action) => !isServed(action));
      if (unserved)
        throw new DialogueError(new Error(`the dialogue asked for ${unserved.type} while calling services`));
    }
  } catch (err) {
    throw err instanceof DialogueTimeoutError || err instanceof DialogueError ? err : new DialogueError(err);
  } finally {
    clearTimeout(timer);
    // Nothing keeps running after the hop, as when a live actor is stopped.
    for (const call of calls.values()) call.controller.abort();
  }
}

/** Starts a service call the machine asked for, or aborts one whose state it left. */
function carryOut(action: ExecutableActionObject, calls: Map<string, Call>, scope: AnyActorScope): void {
  const params = action.params as SpawnParams & { actorRef?: AnyActorRef };
  if (action.type === 'xstate.stopChild') {
    const id = params.actorRef?.id;
    if (id !== undefined) {
      calls.get(id)?.controller.abort();
      calls.delete(id);
    }
    return;
  }
  const { id, actorRef, input } = params;
  const creator = actorRef!.logic!.config as (args: object) => PromiseLike<unknown>;
  const controller = new AbortController();
  const answer = new Promise<unknown>((resolve) =>
    resolve(
      creator({
        input,
        system: scope.system,
        self: actorRef,
        signal: controller.signal,
        emit: () => undefined,
      }),
    ),
  ).then(
    (output) => ({ id, event: { type: `xstate.done.actor.${id}`, output, actorId: id } }),
    (error: unknown) => ({ id, event: { type: `xstate.error.actor.${id}`, error, actorId: id } }),
  );
  calls.set(id, { controller, answer });
}

function hasChildren(snapshot: AnyMachineSnapshot): boolean {
  for (const _ in snapshot.children) return true;
  return false;
}

const isSettled = (s: { status: string; hasTag(tag: string): boolean }) =>
  s.status === 'done' || s.hasTag(SETTLED_TAG);

async function settle(
  actor: AnyActorRef,
  deadline: { at: number; graceMs: number; now: () => number },
): Promise<void> {
  // Most hops settle synchronously (no service call): no timer, no subscription.
  if (isSettled(actor.getSnapshot())) return;
  try {
    await waitFor(actor, isSettled, {
      timeout: Math.max(1, deadline.at - deadline.graceMs - deadline.now()),
    });
    return;
  } catch (err) {
    if (actor.getSnapshot().status === 'error') throw err;
  }
  actor.send({ type: 'TIMEOUT' });
  try {
    await waitFor(actor, isSettled, { timeout: Math.max(1, deadline.at - deadline.now()) });
  } catch (err) {
    if (actor.getSnapshot().status === 'error') throw err;
    throw new DialogueTimeoutError();
  }
}
