import { createActor, waitFor, type AnyActorRef, type AnyStateMachine } from 'xstate';
import { SETTLED_TAG, type DialogueEvent, type DialogueInput, type Screen } from './dialogue';

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

/** What the machine's context holds that the engine reads. */
export interface DialogueContext {
  screen?: Screen;
  language?: string;
}

/** Where a hop's dialogue starts: a stored snapshot, or a fresh dialogue. */
export type DialogueStart = { snapshot: unknown } | { input: DialogueInput };

/** A settled dialogue, after one hop. */
export interface DialogueStep {
  persisted: unknown;
  value: unknown;
  done: boolean;
  context: DialogueContext;
}

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
): Promise<DialogueStep> {
  let actor: AnyActorRef;
  try {
    actor =
      'snapshot' in start
        ? createActor(machine, { snapshot: start.snapshot as never })
        : createActor(machine, { input: start.input });
    // An observer for errors: without one XState rethrows a machine error globally.
    actor.subscribe({ error: () => undefined });
    actor.start();
  } catch (err) {
    throw new DialogueError(err);
  }
  try {
    if (event) actor.send(event);
    await settle(actor, deadline);
    const snapshot = actor.getSnapshot();
    return {
      persisted: actor.getPersistedSnapshot(),
      value: snapshot.value,
      done: snapshot.status === 'done',
      context: (snapshot.context ?? {}) as DialogueContext,
    };
  } catch (err) {
    throw err instanceof DialogueTimeoutError ? err : new DialogueError(err);
  } finally {
    actor.stop();
  }
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

/** The screen a stored snapshot shows. */
export function screenOf(snapshot: unknown): Screen | undefined {
  return (snapshot as { context?: DialogueContext } | null)?.context?.screen;
}
