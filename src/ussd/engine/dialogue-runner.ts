import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { isService, SETTLED_TAG, type DialogueEvent, type DialogueInput } from './dialogue';
import {
  doneEvent,
  errorEvent,
  inertScope,
  promiseCreatorOf,
  spawnedBy,
  stoppedBy,
  type Effect,
} from '../../xstate/internals';

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

/** When the machine must have settled: TIMEOUT is sent `graceMs` before `at`. */
export interface Deadline {
  at: number;
  graceMs: number;
  now: () => number;
}

/**
 * A hop's first step: its start (stored or fresh) with its event applied by XState's pure
 * functions, and the effects it asked for (collected, not carried out) — or why it failed.
 */
export type FirstStep = { snapshot: AnyMachineSnapshot; asked: readonly Effect[] } | { failed: unknown };

/** What a step that asked for nothing asked for (most steps): no array per hop. */
const NOTHING_ASKED: readonly Effect[] = Object.freeze([]);

/** What XState persists of the context is left to {@link DialogueRunner.persistedOf}. */
const NO_CONTEXT: Readonly<Record<string, never>> = Object.freeze({});

/** The longest delay `setTimeout` takes. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** A service call in flight, answering with the event XState would send its parent. */
interface Call {
  controller: AbortController;
  answer: Promise<{ id: string; event: { type: string } }>;
}

/**
 * Runs one version of the dialogue machine, one hop at a time, without an actor: the stored
 * snapshot is restored (or the machine started) and the hop's event applied by XState's pure
 * functions ({@link begin}); the service calls the step asks for (each a `fromService` promise)
 * are run by the runner with what XState would give them — their input and an abort signal — and
 * their answers fed back as XState's own done or error events until the machine settles
 * ({@link finish}). A hop that calls no service (most: a choice, a typed meter) is that first step
 * alone ({@link settledStep}). TIMEOUT is sent at the deadline, as the engine's contract says.
 *
 * The machine may ask for nothing else (no delayed event, no other kind of actor, no service
 * call in a settled state): such a step fails the hop before anything runs. Tests play every
 * script on a live actor too and compare (src/ussd/engine/dialogue-runner.test.ts).
 *
 * Its caches are its own: the scope the pure functions run in, and the machine snapshots its
 * settled steps were persisted from.
 */
export class DialogueRunner {
  /** Effects a pure step asked for; steps are synchronous, so one list serves every hop. */
  private readonly effects: Effect[] = [];
  private readonly scope = inertScope((effect) => void this.effects.push(effect));
  /**
   * The machine snapshot a stored snapshot was persisted from, for as long as the stored object
   * lives (the session store keeps the last record of each live dialogue in process): the next
   * hop continues from it rather than restoring the stored form, which walks the whole context
   * again. Snapshots are immutable; a settled one holds no running child.
   */
  private readonly settled = new WeakMap<object, AnyMachineSnapshot>();

  constructor(
    readonly machine: AnyStateMachine,
    /**
     * Context fields (objects many dialogues hold alike) stored apart from the snapshot
     * (shared-context.ts): put into the restored context and taken out of the one persisted,
     * rather than merged in before the restore and split off after, because XState walks the
     * whole context both ways and these fields are most of it.
     */
    private readonly sharedKeys: readonly string[] = [],
  ) {}

  /** Runs the hop from `start`, fed `event` (or none), until it settles: {@link finish} of {@link begin}. */
  run(start: DialogueStart, event: DialogueEvent | null, deadline: Deadline): Promise<DialogueStep> {
    return this.finish(this.begin(start, event), deadline);
  }

  /** The hop's first step, computed purely; never throws (a failure is kept for {@link finish}). */
  begin(start: DialogueStart, event: DialogueEvent | null): FirstStep {
    this.effects.length = 0;
    try {
      let snapshot: AnyMachineSnapshot;
      if ('snapshot' in start) {
        snapshot = this.continued(start);
        if (hasChildren(snapshot)) throw new Error('the stored snapshot has a service call running');
        if (event) snapshot = this.machine.transition(snapshot, event, this.scope);
      } else snapshot = this.machine.getInitialSnapshot(this.scope, start.input) as AnyMachineSnapshot;
      return { snapshot, asked: this.effects.length > 0 ? this.effects.splice(0) : NOTHING_ASKED };
    } catch (err) {
      return { failed: err };
    } finally {
      // The list is shared: nothing collected may reach the next hop.
      this.effects.length = 0;
    }
  }

  /** The step, when the first step settled with nothing to carry out (no service to call); else null. */
  settledStep(first: FirstStep): DialogueStep | null {
    if ('failed' in first || first.asked.length > 0 || !isSettled(first.snapshot)) return null;
    return this.stepOf(first.snapshot);
  }

  /**
   * The hop from its first step to a settled one: the service calls it asks for run, their
   * answers fed back, until the machine settles. `graceMs` before the deadline it is sent TIMEOUT
   * (the machine answers with its retry screen); a call whose state was left is aborted, and so is
   * any still running when the hop ends. Throws DialogueTimeoutError when it has not settled at
   * the deadline, DialogueError for the machine's own failures.
   */
  async finish(first: FirstStep, deadline: Deadline): Promise<DialogueStep> {
    if ('failed' in first) throw new DialogueError(first.failed);
    let { snapshot, asked } = first;
    const calls = new Map<string, Call>();
    let timeoutAt = deadline.at - deadline.graceMs;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    try {
      for (;;) {
        // Checked before any is carried out: a step that asks for anything else calls nothing.
        const unserved = asked.find((effect) => !isServed(effect));
        if (unserved)
          throw new Error(`the dialogue asked for ${unserved.type}, which the engine does not run`);
        for (const effect of asked) this.carryOut(effect, calls);
        if (snapshot.status === 'error') throw snapshot.error;
        if (snapshot.status !== 'active' && snapshot.status !== 'done')
          throw new Error(`the dialogue is ${snapshot.status}`);
        if (isSettled(snapshot)) {
          if (hasChildren(snapshot)) throw new Error('the dialogue settled with a service call running');
          return this.stepOf(snapshot);
        }
        const expired = new Promise<null>((resolve) => {
          // Node fires a delay past 2^31 - 1 ms at once: a far deadline waits that long at most.
          const ms = Math.min(MAX_DELAY_MS, Math.max(1, timeoutAt - deadline.now()));
          timer = setTimeout(() => resolve(null), ms);
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
            asked = NOTHING_ASKED;
            continue;
          }
          fed = next.event;
        }
        try {
          snapshot = this.machine.transition(snapshot, fed as never, this.scope);
          asked = this.effects.splice(0);
        } finally {
          this.effects.length = 0;
        }
      }
    } catch (err) {
      throw err instanceof DialogueTimeoutError || err instanceof DialogueError
        ? err
        : new DialogueError(err);
    } finally {
      clearTimeout(timer);
      // Nothing keeps running after the hop.
      for (const call of calls.values()) call.controller.abort();
    }
  }

  /** Whether a stored snapshot stands in a state tagged `tag`; false when it cannot be restored. */
  hasTag(stored: unknown, tag: string): boolean {
    try {
      return (this.machine.restoreSnapshot(stored as never, this.scope) as AnyMachineSnapshot).hasTag(tag);
    } catch {
      return false;
    }
  }

  /** Starts a service call the machine asked for, or aborts one whose state it left. */
  private carryOut(effect: Effect, calls: Map<string, Call>): void {
    const stopped = stoppedBy(effect);
    if (stopped !== undefined) {
      if (stopped !== null) {
        calls.get(stopped)?.controller.abort();
        calls.delete(stopped);
      }
      return;
    }
    const { id, actorRef, logic, input } = spawnedBy(effect)!;
    const creator = promiseCreatorOf(logic);
    const controller = new AbortController();
    const { system } = this.scope;
    const answer = new Promise<unknown>((resolve) =>
      resolve(creator({ input, system, self: actorRef, signal: controller.signal, emit: () => undefined })),
    ).then(
      (output) => ({ id, event: doneEvent(id, output) }),
      (error: unknown) => ({ id, event: errorEvent(id, error) }),
    );
    calls.set(id, { controller, answer });
  }

  /** The snapshot a stored dialogue continues from: the one it was persisted from, else restored. */
  private continued(start: StoredDialogue): AnyMachineSnapshot {
    const kept =
      typeof start.snapshot === 'object' && start.snapshot !== null
        ? this.settled.get(start.snapshot)
        : undefined;
    if (kept) return kept;
    const restored = this.machine.restoreSnapshot(start.snapshot as never, this.scope) as AnyMachineSnapshot;
    // The shared fields go in by one object literal: V8 keeps it fast, where adding fields to the
    // restored context would make it a dictionary, from which every `assign` copies ~20× slower.
    if (start.shared) (restored as { context: unknown }).context = { ...restored.context, ...start.shared };
    return restored;
  }

  /**
   * A settled snapshot as the engine stores and shows it, the shared fields apart when all are
   * there; remembered as the snapshot its stored form continues from.
   */
  private stepOf(snapshot: AnyMachineSnapshot): DialogueStep {
    const context = (snapshot.context ?? {}) as Record<string, unknown>;
    const view = {
      value: snapshot.value,
      done: snapshot.status === 'done',
      context: context as DialogueContext,
    };
    const keys = this.sharedKeys;
    let step: DialogueStep;
    if (keys.length === 0 || keys.some((key) => typeof context[key] !== 'object' || context[key] === null))
      step = { persisted: this.persistedOf(snapshot, context), ...view };
    else {
      const rest: Record<string, unknown> = {};
      const shared: Record<string, unknown> = {};
      for (const key in context) (keys.includes(key) ? shared : rest)[key] = context[key];
      step = { persisted: this.persistedOf(snapshot, rest), shared, ...view };
    }
    if (snapshot.status === 'active') this.settled.set(step.persisted as object, snapshot);
    return step;
  }

  /**
   * XState's persisted form of `snapshot`, with `context` stored as it is. XState would walk the
   * context for actor references to replace; a dialogue's context holds none (machines/README.md),
   * so the walk finds nothing and returns the same objects. On Node 24 that walk (a for-in over
   * objects of many shapes) is optimised and thrown away again on nearly every hop: 22% of the
   * engine's CPU, measured.
   */
  private persistedOf(snapshot: AnyMachineSnapshot, context: Record<string, unknown>): unknown {
    // A new object of XState's: its context (the empty one) is replaced in place.
    const persisted = this.machine.getPersistedSnapshot({
      ...snapshot,
      context: NO_CONTEXT,
    } as AnyMachineSnapshot) as unknown as { context: unknown };
    persisted.context = context;
    return persisted;
  }
}

/** What the runner carries out itself: service calls started, and calls stopped (the state was left). */
function isServed(effect: Effect): boolean {
  return stoppedBy(effect) !== undefined || isService(spawnedBy(effect)?.logic);
}

function hasChildren(snapshot: AnyMachineSnapshot): boolean {
  for (const _ in snapshot.children) return true;
  return false;
}

const isSettled = (s: AnyMachineSnapshot) =>
  s.status === 'done' || (s.status === 'active' && s.hasTag(SETTLED_TAG));
