/**
 * A next version of the USSD machine, for tests that play a deploy: the gateway's own machine
 * with one real change that breaks its stored snapshots — the quote state is renamed `confirm`
 * (screens, actors and guards unchanged). A version 6 snapshot standing at `quote` cannot be
 * restored on it; only the version's own machine continues it.
 */
import { createMachine, type AnyStateMachine } from 'xstate';
import { dialogueActors, ussdMachine, USSD_MACHINE_VERSION } from '../../machines/ussd-session.machine';
import { CURRENT_USSD_MACHINE, type UssdMachineBuild, type UssdMachines } from '../../machines/ussd-versions';

/** The next version's number (the current one plus one). */
export const NEXT_USSD_VERSION = String(Number(USSD_MACHINE_VERSION) + 1);

type Node = Record<string, unknown>;

/** A transition (string target, object, or a list of them) with `from` as target renamed `to`. */
function retarget(transition: unknown, from: string, to: string): unknown {
  if (transition === from) return to;
  if (Array.isArray(transition)) return transition.map((t) => retarget(t, from, to));
  if (transition && typeof transition === 'object') {
    const t = transition as Node;
    return 'target' in t ? { ...t, target: retarget(t.target, from, to) } : t;
  }
  return transition;
}

/** A state node (and its children) with the state `from` renamed `to` and every transition to it. */
function renameState(node: Node, from: string, to: string): Node {
  const out: Node = { ...node };
  if (node.on) {
    const on = node.on as Node;
    out.on = Object.fromEntries(Object.keys(on).map((k) => [k, retarget(on[k], from, to)]));
  }
  if (node.always) out.always = retarget(node.always, from, to);
  if (node.invoke) {
    const invoke = node.invoke as Node;
    out.invoke = {
      ...invoke,
      ...(invoke.onDone ? { onDone: retarget(invoke.onDone, from, to) } : {}),
      ...(invoke.onError ? { onError: retarget(invoke.onError, from, to) } : {}),
    };
  }
  if (node.states) {
    const states = node.states as Record<string, Node>;
    out.states = Object.fromEntries(
      Object.keys(states).map((k) => [k === from ? to : k, renameState(states[k], from, to)]),
    );
  }
  if (node.initial === from) out.initial = to;
  return out;
}

/** The next version's machine, actors unprovided. */
export const nextUssdMachine = createMachine(
  renameState(ussdMachine.config as unknown as Node, 'quote', 'confirm') as never,
  ussdMachine.implementations as never,
) as unknown as AnyStateMachine;

/** The next version as the gateway builds it. */
export const NEXT_USSD_MACHINE: UssdMachineBuild = {
  version: NEXT_USSD_VERSION,
  create: (services) => nextUssdMachine.provide({ actors: dialogueActors(services) as never }),
  screenOf: CURRENT_USSD_MACHINE.screenOf,
};

/**
 * The builds of a machine change's deploy, in order: the one before it (current version only),
 * the one that ships the next version without starting on it, the one that starts on it and
 * keeps the previous, and the one that dropped the previous.
 */
export const DEPLOY: Record<'before' | 'expand' | 'switch' | 'after', UssdMachines> = {
  before: { start: CURRENT_USSD_MACHINE, others: [] },
  expand: { start: CURRENT_USSD_MACHINE, others: [NEXT_USSD_MACHINE] },
  switch: { start: NEXT_USSD_MACHINE, others: [CURRENT_USSD_MACHINE] },
  after: { start: NEXT_USSD_MACHINE, others: [] },
};
