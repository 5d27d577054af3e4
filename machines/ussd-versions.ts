/**
 * The USSD machine versions this build serves. A dialogue runs to its end on the version it
 * started with, on any instance that knows that version: its record names the version
 * (`SessionRecord.machineVersion`), and the engine picks that version's machine for every hop.
 * How a machine change ships (expand, switch, remove): machines/README.md.
 */
import type { AnyStateMachine } from 'xstate';
import type { Screen } from '../src/ussd/engine/dialogue';
import type { DialogueServices } from './ussd/actors';
import type { UssdContext } from './ussd/context';
import { createUssdMachine, dialogueScreen, USSD_MACHINE_VERSION } from './ussd-session.machine';

/** One version of the dialogue, as the gateway builds it over its services. */
export interface UssdMachineBuild {
  version: string;
  create(services: DialogueServices): AnyStateMachine;
  screenOf(context: UssdContext): Screen | undefined;
}

/** The version new dialogues start on, and the other versions whose dialogues may be in flight. */
export interface UssdMachines {
  start: UssdMachineBuild;
  others: readonly UssdMachineBuild[];
}

/** The machine in `ussd-session.machine.ts`: `USSD_MACHINE_VERSION`. */
export const CURRENT_USSD_MACHINE: UssdMachineBuild = {
  version: USSD_MACHINE_VERSION,
  create: createUssdMachine,
  screenOf: dialogueScreen,
};

/**
 * What the gateway serves. `others` holds the previous version while its dialogues may still be
 * in flight (a deploy), or the next one while it is shipped but not yet started on; empty
 * between two machine changes, as now.
 */
export const USSD_MACHINES: UssdMachines = {
  start: CURRENT_USSD_MACHINE,
  others: [],
};

/**
 * The machines with `start` chosen by `USSD_MACHINE_START` (undefined: as built): a build that
 * serves the next version in `others` starts on it when the setting names it, so a build can be
 * shipped as expand and then switched by a setting.
 */
export function ussdMachinesStartingOn(start: string | undefined, machines = USSD_MACHINES): UssdMachines {
  if (start === undefined || start === machines.start.version) return machines;
  const all = [machines.start, ...machines.others];
  const chosen = all.find((m) => m.version === start);
  if (!chosen)
    throw new Error(`USSD_MACHINE_START=${start}: this build serves ${all.map((m) => m.version).join(', ')}`);
  return { start: chosen, others: all.filter((m) => m !== chosen) };
}
