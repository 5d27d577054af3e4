/**
 * Every part of XState the code reads beyond its public API, in one place: the hop engine's
 * dialogue runner (src/ussd/engine/dialogue-runner.ts) and the lifecycles' pure decisions
 * (src/purchases/lifecycle/machine.ts, src/payments/lifecycle/machine.ts). `xstate` is pinned to
 * the exact version this was checked against (package.json), and `internals.test.ts` fails when
 * any of these changes shape: upgrade XState only with that test green.
 *
 * - An actor scope built by hand, for the pure functions (`getInitialSnapshot`, `transition`,
 *   `restoreSnapshot`): XState's own `transition()` builds a whole actor per call, and that
 *   actor computes the machine's initial snapshot (three quarters of a lifecycle decision's time).
 * - The effects a pure step collects through that scope's `actionExecutor`: `xstate.spawnChild`
 *   with params `{ id, actorRef, input }` (the child's reference, never started), and
 *   `xstate.stopChild` whose params are the stopped child's reference.
 * - A `fromPromise` logic keeps its promise creator as `logic.config`.
 * - The events a finished child sends its parent: `xstate.done.actor.<id>` with `output`,
 *   `xstate.error.actor.<id>` with `error`.
 */
import {
  createActor,
  fromTransition,
  type AnyActorRef,
  type AnyActorScope,
  type AnyStateMachine,
  type EventFromLogic,
  type ExecutableActionObject,
  type SnapshotFrom,
} from 'xstate';

/** An effect a step asked for, as the scope's `actionExecutor` receives it. */
export type Effect = ExecutableActionObject;

/** A scope whose owner is an inert actor that never starts; effects go to `collect`, never carried out. */
export function inertScope(collect: (effect: Effect) => void): AnyActorScope {
  const self = createActor(fromTransition((state: null) => state, null));
  return {
    self,
    id: '',
    sessionId: '',
    system: self.system,
    logger: () => undefined,
    defer: () => undefined,
    emit: () => undefined,
    stopChild: () => undefined,
    actionExecutor: collect,
  };
}

/** The scope of every `nextSnapshot` step: synchronous, and its effects dropped, so one serves all. */
const deciding = inertScope(() => undefined);

/**
 * The snapshot `event` takes `snapshot` to, as XState's `transition(machine, snapshot, event)[0]`
 * gives it, without the actor that builds per call. For machines that only decide: their
 * assignments are in the snapshot; any other effect of the step is dropped, as a caller of
 * `transition()` that reads only the snapshot drops it; and they start no child (this shared
 * scope's system would gather children with a `systemId`).
 */
export function nextSnapshot<Machine extends AnyStateMachine>(
  machine: Machine,
  snapshot: SnapshotFrom<Machine>,
  event: EventFromLogic<Machine>,
): SnapshotFrom<Machine> {
  return machine.transition(snapshot, event, deciding) as SnapshotFrom<Machine>;
}

/** A child a step starts: its id, its (unstarted) reference, its logic and input. */
export interface Spawned {
  id: string;
  actorRef: AnyActorRef;
  logic: unknown;
  input: unknown;
}

/** The child an `xstate.spawnChild` effect starts; undefined for any other effect. */
export function spawnedBy(effect: Effect): Spawned | undefined {
  if (effect.type !== 'xstate.spawnChild') return undefined;
  const params = effect.params as {
    id: string;
    actorRef?: AnyActorRef & { logic?: unknown };
    input?: unknown;
  };
  if (!params.actorRef) return undefined;
  return { id: params.id, actorRef: params.actorRef, logic: params.actorRef.logic, input: params.input };
}

/**
 * The id of the child an `xstate.stopChild` effect stops (null: it names no child); undefined for
 * any other effect.
 */
export function stoppedBy(effect: Effect): string | null | undefined {
  if (effect.type !== 'xstate.stopChild') return undefined;
  return (effect.params as AnyActorRef | undefined)?.id ?? null;
}

/** A `fromPromise` logic's promise creator (what XState calls when the child starts). */
export function promiseCreatorOf(logic: unknown): (args: object) => PromiseLike<unknown> {
  return (logic as { config: (args: object) => PromiseLike<unknown> }).config;
}

/** The event a child that finished with `output` sends its parent. */
export const doneEvent = (id: string, output: unknown) => ({
  type: `xstate.done.actor.${id}`,
  output,
  actorId: id,
});

/** The event a child that failed with `error` sends its parent. */
export const errorEvent = (id: string, error: unknown) => ({
  type: `xstate.error.actor.${id}`,
  error,
  actorId: id,
});
