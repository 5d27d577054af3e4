/**
 * The USSD machine versions this build serves. A dialogue runs to its end on the version it
 * started with, on any instance that knows that version: its record names the version
 * (`SessionRecord.machineVersion`), and the engine picks that version's machine for every hop.
 * How a machine change ships (expand, switch, remove): machines/README.md.
 */
import type { AnyStateMachine } from 'xstate';
import type { Screen } from '../src/session/dialogue';
import type { DialogueServices } from './ussd/actors';
import type { UssdContext } from './ussd/context';
import { createUssdMachine, dialogueScreen, USSD_MACHINE_VERSION } from './ussd-session.machine';
import { createUssdMachineV6, dialogueScreen as dialogueScreenV6, USSD_V6_VERSION } from './ussd/v6/machine';

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

/** Version 6, frozen (machines/ussd/v6/): served until its dialogues are over (the "remove" step). */
export const USSD_MACHINE_V6: UssdMachineBuild = {
  version: USSD_V6_VERSION,
  create: createUssdMachineV6,
  screenOf: dialogueScreenV6,
};

/**
 * What the gateway serves. `others` holds the previous version while its dialogues may still be
 * in flight (a deploy), or the next one while it is shipped but not yet started on; empty
 * between two machine changes. Version 7 (saved meters, gifts, shortcuts, My purchases, Help)
 * is the start; 6 is still served (switch step).
 */
export const USSD_MACHINES: UssdMachines = {
  start: CURRENT_USSD_MACHINE,
  others: [USSD_MACHINE_V6],
};

/**
 * The machines with `start` chosen by `USSD_MACHINE_START` (undefined: as built): `6` starts new
 * dialogues on version 6 with 7 served — the expand step, for the first rolling deploy from a
 * build that knows only 6 — so a build can be shipped as expand and then switched by a setting.
 */
export function ussdMachinesStartingOn(start: string | undefined, machines = USSD_MACHINES): UssdMachines {
  if (start === undefined || start === machines.start.version) return machines;
  const all = [machines.start, ...machines.others];
  const chosen = all.find((m) => m.version === start);
  if (!chosen)
    throw new Error(`USSD_MACHINE_START=${start}: this build serves ${all.map((m) => m.version).join(', ')}`);
  return { start: chosen, others: all.filter((m) => m !== chosen) };
}
