import type { AnyStateMachine } from 'xstate';
import type { Screen } from './dialogue';
import { DialogueRunner } from './dialogue-runner';
import type { SessionRecord } from './store/types';

/**
 * One version of the dialogue machine (contract: src/ussd/engine/dialogue.ts). A dialogue runs to its
 * end on the version it started with: its record names the version, on every instance.
 */
export interface DialogueMachine {
  /** Stored with every snapshot the machine writes. */
  version: string;
  machine: AnyStateMachine;
  /** As {@link HopEngineOptions.screenOf}, for this version (default: its context's `screen`). */
  screenOf?: (context: never) => Screen | undefined;
}

/** A machine version as the engine runs it: its runner, and the screen its context shows. */
export interface Version {
  id: string;
  runner: DialogueRunner;
  screenOf: (context: object) => Screen | undefined;
}

/**
 * The machine versions a build serves: new dialogues start on `start`, a stored one goes on on
 * the version its record names (machines/README.md, _Versions_). Choosing one is a lookup.
 */
export class MachineVersions {
  readonly start: Version;
  /** Every version's id, the start version's too (for `takeResumable`). */
  readonly ids: readonly string[];
  private readonly byId: ReadonlyMap<string, Version>;

  constructor(start: DialogueMachine, others: readonly DialogueMachine[], sharedKeys: readonly string[]) {
    const versionOf = (m: DialogueMachine): Version => ({
      id: m.version,
      runner: new DialogueRunner(m.machine, sharedKeys),
      screenOf:
        (m.screenOf as ((context: object) => Screen | undefined) | undefined) ??
        ((context) => (context as { screen?: Screen }).screen),
    });
    this.start = versionOf(start);
    this.byId = new Map([this.start, ...others.map(versionOf)].map((v) => [v.id, v]));
    this.ids = [...this.byId.keys()];
  }

  get(id: string): Version | undefined {
    return this.byId.get(id);
  }

  /** Whether this build can continue a dialogue of version `id`. */
  readonly knows = (id: string): boolean => this.byId.has(id);

  /** The version a hop on `record` runs on: the record's own, else (none, or unknown) the start version. */
  of(record: SessionRecord | null): Version {
    return (record && this.byId.get(record.machineVersion)) ?? this.start;
  }

  /**
   * The screen a stored dialogue shows, drawn by its own version with its shared context put back
   * (a screen may read the catalogue); undefined without a snapshot or of a version not served.
   */
  screenOf(record: SessionRecord, shared: Readonly<Record<string, unknown>> | undefined): Screen | undefined {
    const context = storedContext(record);
    const version = this.byId.get(record.machineVersion);
    if (!context || !version) return undefined;
    return version.screenOf(shared ? { ...context, ...shared } : context);
  }
}

/** The context of a record's snapshot; undefined when it has none. */
export function storedContext(record: SessionRecord): object | undefined {
  return (record.snapshot as { context?: object } | null)?.context;
}
