import type { AnyStateMachine } from 'xstate';
import type { Locales } from '../../i18n';
import type { Screen } from './dialogue';
import type { UssdHop, UssdReply, UssdSessionEnd } from './hop';
import type { SessionRef, SessionStore } from './store/types';
import type { DialogueMachine } from './versions';

/** The hop engine's options, what it offers, and the texts it shows itself (engine.ts). */

export interface HopEngineOptions {
  store: SessionStore;
  /** The machine new dialogues start on (contract: src/ussd/engine/dialogue.ts). */
  machine: AnyStateMachine;
  /**
   * Its version, stored with every snapshot. A stored dialogue of another version continues on
   * that version's machine when it is in `otherVersions`; of a version this build does not
   * know, it is discarded (fresh menu).
   */
  machineVersion: string;
  /**
   * The other versions whose dialogues may be in flight (a deploy: the previous version, or the
   * next one before it becomes the one dialogues start on). See machines/README.md.
   */
  otherVersions?: readonly DialogueMachine[];
  locales: Locales;
  /** Screen limit of the aggregator, counted as phones count (default 182). */
  screenLimit: number;
  /** Whole time a hop may take, lock wait and save included; below the aggregator's timeout. */
  hopBudgetMs: number;
  /** TTL of a dialogue's record, refreshed on every hop (also the replay record's, once final). */
  sessionTtlS: number;
  /** How long a dropped dialogue can be resumed by a new session of the same caller (0: never). */
  resumeWindowS: number;
  /** Language tag when the caller has no remembered preference. */
  defaultLanguage: string;
  /**
   * Context fields many dialogues hold alike (objects: the catalogue, the settings), stored once
   * per content instead of in every snapshot (src/ussd/engine/shared-context.ts). Default: none.
   */
  sharedContextKeys?: readonly string[];
  /**
   * The screen a settled dialogue's context shows (contract: src/ussd/engine/dialogue.ts), for
   * `machine`. Default:
   * its `screen` field. A machine that derives its screen from the context gives the engine that
   * function, and its snapshots store no screen. (The parameter is `never` so that a function of
   * the machine's own context type fits.)
   */
  screenOf?: (context: never) => Screen | undefined;
}

/** The hop engine: load + lock → feed one event → settle → render → save + unlock. */
export interface HopEngine {
  /** Answers one hop; never throws (a failure answers a polite END). */
  handleHop(hop: UssdHop): Promise<UssdReply>;
  /** Applies an aggregator's end-of-session notification. */
  endSession(end: UssdSessionEnd): Promise<'ended' | 'ignored'>;
  /** Whether a dialogue is waiting for its next hop (an aggregator's status ask). */
  sessionActive(ref: SessionRef): Promise<boolean>;
}

/** Message keys of the screens the engine itself shows (not the machine). */
export const TEXTS = {
  /** Another hop of the session is still running. */
  busy: 'error.timeout',
  /** Prepended to the previous screen when the machine did not settle within the hop budget. */
  timeout: 'error.timeout',
  /** The machine's own failure. */
  unavailable: 'error.serviceUnavailable',
  /** A hop on a finished dialogue, or from another number than the session's. */
  ended: 'error.sessionEnded',
  /**
   * The store failed or the whole hop overran its budget (Redis restarting): the dialogue is
   * kept, and a Buy that may have gone through is not invited again.
   */
  interrupted: 'error.hopInterrupted',
  invalidChoice: 'error.invalidChoice',
  resumePrompt: 'resume.prompt',
  resumeYes: 'resume.yes',
  resumeNo: 'resume.no',
} as const;
