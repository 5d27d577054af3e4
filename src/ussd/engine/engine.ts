import {
  componentLogger,
  maskMsisdn,
  premasked,
  withLogContext,
  type LogContext,
} from '../../observability/logger';
import { answerOf, type AnswerSettings, type HopOutcome, type Outcome, type RecordBody } from './answer';
import type { Screen } from './dialogue';
import { DialogueError, DialogueTimeoutError, type DialogueStep, type FirstStep } from './dialogue-runner';
import type { UssdHop, UssdReply, UssdSessionEnd } from './hop';
import { playHop, type PureHop, type SaveAndUnlock } from './hop-protocol';
import { mayBeShortcut, type HopAction } from './input';
import { isResumable, resumeChoice, resumeScreen } from './resume-offer';
import { withinBudget } from './hop-budget';
import { endDialogue } from './session-lock';
import { SharedContext } from './shared-context';
import { stepAnswerOf } from './step-answer';
import type { SessionRecord, SessionRef, SessionStore } from './store/types';
import { planOf, turnOf, type Plan, type Turn } from './turn';
import { MachineVersions, storedContext, type Version } from './versions';

import { TEXTS, type HopEngine, type HopEngineOptions } from './engine-options';

export type { DialogueMachine } from './versions';
export type { HopEngine, HopEngineOptions } from './engine-options';

const log = componentLogger('ussd-engine');

/**
 * A hop decided on one record: its turn, its plan, and what was computed on the way — the
 * machine's first step, and for a pure step the answer itself. Under the lock, on the very record
 * it was decided on (the remembered one, unchanged), none of it is computed again.
 */
interface Decided {
  turn: Turn;
  plan: Plan;
  version: Version;
  first?: FirstStep;
  pure?: PureHop<HopOutcome>;
}

export function createHopEngine(options: HopEngineOptions): HopEngine {
  const engine = new Engine(options);
  return {
    handleHop: (hop) => engine.handleHop(hop),
    endSession: (end) => engine.endSession(end),
    sessionActive: async (ref) => (await options.store.peek(ref))?.status === 'active',
  };
}

class Engine {
  private readonly store: SessionStore;
  /** A dropped dialogue must outlive its resume window. */
  private readonly activeTtlS: number;
  /** The lock outlives the hop budget so a slow hop keeps it until it saves. */
  private readonly lockMs: number;
  /** Reserved before the deadline for the machine to settle on its retry screen after TIMEOUT. */
  private readonly timeoutGraceMs: number;
  /** Reserved after the machine's deadline for the save and unlock, inside the budget. */
  private readonly storeReserveMs: number;
  private readonly shared: SharedContext;
  private readonly answers: AnswerSettings;
  private readonly versions: MachineVersions;

  constructor(private readonly options: HopEngineOptions) {
    this.store = options.store;
    const sharedKeys = options.sharedContextKeys ?? [];
    this.versions = new MachineVersions(
      { version: options.machineVersion, machine: options.machine, screenOf: options.screenOf },
      options.otherVersions ?? [],
      sharedKeys,
    );
    this.activeTtlS = Math.max(options.sessionTtlS, options.resumeWindowS);
    // A record lives its TTL after its last save; a resumed one, the resume window more.
    this.shared = new SharedContext(options.store, sharedKeys, this.activeTtlS + options.resumeWindowS);
    this.answers = {
      locales: options.locales,
      screenLimit: options.screenLimit,
      finalTtlS: options.sessionTtlS,
      activeTtlS: this.activeTtlS,
    };
    this.lockMs = options.hopBudgetMs + 2000;
    this.timeoutGraceMs = Math.min(1000, Math.floor(options.hopBudgetMs / 5));
    this.storeReserveMs = Math.min(500, Math.floor(options.hopBudgetMs / 10));
  }

  async handleHop(hop: UssdHop): Promise<UssdReply> {
    const logContext: LogContext = { requestId: `${hop.aggregator}-${hop.sessionId}-0` };
    return withLogContext(logContext, async () => {
      const started = Date.now();
      let result: HopOutcome;
      try {
        result = await withinBudget(this.hop(hop, logContext, started), started, this.options.hopBudgetMs);
      } catch (err) {
        const infrastructure = !(err instanceof DialogueError);
        log.error(infrastructure ? 'hop interrupted: store failure or budget exceeded' : 'hop failed', {
          error: err instanceof DialogueError ? err.cause : err,
        });
        const text = infrastructure ? TEXTS.interrupted : TEXTS.unavailable;
        result = this.end(this.options.defaultLanguage, text, 'failure');
      }
      // Every field is masked or a name of ours: the line skips the logger's masking walk.
      log.info(
        'hop',
        premasked({
          aggregator: hop.aggregator,
          msisdn: maskMsisdn(hop.msisdn),
          outcome: result.outcome,
          state: result.state === undefined ? undefined : JSON.stringify(result.state),
          durationMs: Date.now() - started,
          end: result.reply.end,
        }),
      );
      return result.reply;
    });
  }

  endSession(end: UssdSessionEnd): Promise<'ended' | 'ignored'> {
    return endDialogue(this.store, end, {
      lockMs: this.lockMs,
      waitMs: this.options.hopBudgetMs,
      resumeWindowS: this.options.resumeWindowS,
      activeTtlS: this.activeTtlS,
      finalTtlS: this.options.sessionTtlS,
    });
  }

  /** One hop by the hop protocol (hop-protocol.ts): decided once per record it runs on. */
  private async hop(hop: UssdHop, logContext: LogContext, started: number): Promise<HopOutcome> {
    const ref: SessionRef = { aggregator: hop.aggregator, sessionId: hop.sessionId };
    const deadline = started + this.options.hopBudgetMs - this.storeReserveMs;
    let remembered: Decided | undefined;
    const decide = (record: SessionRecord | null): Decided => {
      const turn = turnOf(hop, ref, record);
      logContext.requestId = `${hop.aggregator}-${hop.sessionId}-${turn.hopNo}`;
      return { turn, plan: planOf(turn, this.versions.knows), version: this.versions.of(record) };
    };
    const outcome = await playHop<HopOutcome>(
      this.store,
      ref,
      { lockMs: this.lockMs, waitUntil: started + Math.floor(this.options.hopBudgetMs / 2) },
      {
        pure: (record) => this.pureStep((remembered = decide(record))),
        locked: (record, save) =>
          this.locked(record !== null && remembered?.turn.record === record ? remembered : decide(record), {
            save,
            deadline,
          }),
        busy: () => this.end(this.options.defaultLanguage, TEXTS.busy, 'busy'),
      },
    );
    // The machine changed the language: remember it for the caller (engine I/O, not the machine's).
    if (outcome.language !== undefined) await this.store.setLanguage(hop.msisdn, outcome.language);
    return outcome;
  }

  /**
   * A hop on a remembered record without the lock: a page of the screen shown, or an event the
   * machine settles on with nothing to carry out (no service to call). Anything else — a service
   * to call, a replay, a refusal, a resume, a fresh menu, shared context not in this process —
   * needs the lock (null).
   */
  private async pureStep(decided: Decided): Promise<PureHop<HopOutcome> | null> {
    const { turn, plan, version } = decided;
    const record = turn.record!;
    if (plan.kind !== 'page' && plan.kind !== 'event') return null;
    const shared = this.shared.held(record.shared);
    if (shared === null) return null;
    if (plan.kind === 'page') {
      const screen = this.versions.screenOf(record, shared);
      if (!screen) return null;
      decided.pure = this.answer(turn, version, { ...record }, screen, 'page', plan.page);
    } else if (plan.kind === 'event') {
      decided.first = version.runner.begin({ snapshot: record.snapshot, shared }, plan.event);
      const step = version.runner.settledStep(decided.first);
      if (!step) return null;
      try {
        decided.pure = await stepAnswerOf(
          this.answers,
          this.shared,
          turn,
          version,
          step,
          record.language,
          'event',
          plan.samePage,
        );
      } catch (err) {
        // The machine's own failure resets the dialogue: that is decided under the lock.
        if (err instanceof DialogueError) return null;
        throw err;
      }
    }
    return decided.pure ?? null;
  }

  /** The hop under the lock, on the record as stored: what it is decides what runs. */
  private async locked(decided: Decided, lock: LockedHop): Promise<HopOutcome> {
    // Decided purely on this very record: only the save is left.
    if (decided.pure) return this.saved(decided.pure, lock);
    const { turn, plan, version } = decided;
    const record = turn.record!;
    switch (plan.kind) {
      case 'first':
        return this.firstHop(turn, lock);
      case 'lost':
        // What the caller chose on the lost screen is unknown (a Buy may have gone through):
        // never a fresh menu that takes the next input for another choice, nothing saved.
        log.warn('hop on a dialogue whose record is gone: answering interrupted');
        return this.end(this.options.defaultLanguage, TEXTS.interrupted, 'failure');
      case 'asIs':
        if (plan.outcome === 'replay') return { reply: record.lastReply, outcome: 'replay' };
        if (plan.outcome === 'refused')
          log.warn('hop refused: msisdn differs from the session', {
            sessionMsisdn: maskMsisdn(record.msisdn),
          });
        return this.end(record.language, TEXTS.ended, plan.outcome);
      case 'resume':
        return this.resumeAnswer(turn, version, plan.action, lock);
      case 'unknown':
        log.warn('discarding a snapshot of a machine version this build does not know', {
          stored: record.machineVersion,
        });
        return this.fresh(turn, record.language, lock);
      case 'page': {
        const screen = await this.storedScreen(record);
        if (!screen) throw new DialogueError(new Error('stored snapshot has no screen'));
        return this.saved(this.answer(turn, version, { ...record }, screen, 'page', plan.page), lock);
      }
      case 'event':
        return this.continued(decided, plan, lock);
    }
  }

  /** An event for a stored dialogue: its machine stepped, its services called, its screen answered. */
  private async continued(
    decided: Decided,
    plan: Extract<Plan, { kind: 'event' }>,
    lock: LockedHop,
  ): Promise<HopOutcome> {
    const { turn, version } = decided;
    const record = turn.record!;
    let first = decided.first;
    if (!first) {
      const shared = await this.shared.valuesOf(record.shared);
      if (shared === null) {
        log.warn('the shared context of the stored dialogue is gone: fresh menu', { shared: record.shared });
        return this.fresh(turn, record.language, lock);
      }
      first = version.runner.begin({ snapshot: record.snapshot, shared }, plan.event);
    }
    try {
      return await this.step(turn, version, first, record.language, 'event', plan.samePage, lock);
    } catch (err) {
      // Only the machine's own failure resets the dialogue (it fails before anything is saved); a
      // store error (Redis restarting) keeps it for the next dial, and costs no further Redis calls now.
      if (!(err instanceof DialogueError)) throw err;
      log.warn('could not continue the stored dialogue: fresh menu', { error: err.cause });
      return this.fresh(turn, record.language, lock);
    }
  }

  /** First hop: the caller's own keys (one extra round trip), maybe the resume offer. */
  private async firstHop(turn: Turn, lock: LockedHop): Promise<HopOutcome> {
    const { msisdn } = turn.hop;
    const { resumeWindowS } = this.options;
    const caller = await this.store.startMsisdnSession(msisdn, turn.ref, this.activeTtlS + resumeWindowS);
    const language = caller.language ?? this.options.defaultLanguage;
    // A shortcut says what the caller wants now: no resume offer in front of it.
    if (resumeWindowS > 0 && caller.previous && !mayBeShortcut(turn.hop.dialled)) {
      const old = await this.store.takeResumable(caller.previous, {
        minUpdatedAt: Date.now() - resumeWindowS * 1000,
        machineVersions: this.versions.ids,
      });
      const version = old && this.versions.get(old.machineVersion);
      const oldScreen = version && old.msisdn === msisdn ? await this.storedScreen(old) : undefined;
      if (
        version &&
        oldScreen &&
        (old.resume !== undefined || isResumable(version.runner, old.snapshot, oldScreen))
      ) {
        // The offer keeps the old dialogue's version: "continue" goes on on its machine.
        const resume = {
          fromSessionId: old.resume?.fromSessionId ?? caller.previous.sessionId,
          page: old.resume?.page ?? old.page,
        };
        const offer = resumeScreen(TEXTS, oldScreen);
        return this.saved(this.answer(turn, version, { ...old, resume }, offer, 'resume'), lock);
      }
    }
    return this.fresh(turn, language, lock);
  }

  /** The caller answered the resume offer: the old screen again, a fresh menu, or the offer again. */
  private async resumeAnswer(
    turn: Turn,
    version: Version,
    action: HopAction,
    lock: LockedHop,
  ): Promise<HopOutcome> {
    const record = turn.record!;
    const choice = resumeChoice(action);
    if (choice === 'fresh') return this.fresh(turn, record.language, lock);
    const screen = await this.storedScreen(record);
    if (choice === 'invalid') {
      const offer = resumeScreen(TEXTS, screen, { key: TEXTS.invalidChoice });
      return this.saved(this.answer(turn, version, { ...record }, offer, 'resume'), lock);
    }
    if (!screen) return this.fresh(turn, record.language, lock);
    const { resume, ...rest } = record;
    return this.saved(this.answer(turn, version, rest, screen, 'resume', resume?.page ?? 1), lock);
  }

  /** A fresh dialogue for this caller on the start version (the session's creation time and service code kept). */
  private fresh(turn: Turn, language: string, lock: LockedHop): Promise<HopOutcome> {
    const { hop, record } = turn;
    const input = {
      sessionId: hop.sessionId,
      aggregator: hop.aggregator,
      msisdn: hop.msisdn,
      language,
      serviceCode: record?.serviceCode ?? hop.serviceCode,
      startedAt: record?.createdAt ?? Date.now(),
      // Only the session's first hop carries a shortcut (never a fresh menu after a discarded one).
      ...(!record && mayBeShortcut(hop.dialled) && { dialled: hop.dialled }),
    };
    const { start } = this.versions;
    return this.step(turn, start, start.runner.begin({ input }, null), language, 'new', false, lock);
  }

  /** Runs the machine from its first step until it settles, then answers its screen. */
  private async step(
    turn: Turn,
    version: Version,
    first: FirstStep,
    language: string,
    outcome: Outcome,
    samePage: boolean,
    lock: LockedHop,
  ): Promise<HopOutcome> {
    let step: DialogueStep;
    try {
      step = await version.runner.finish(first, {
        at: lock.deadline,
        graceMs: this.timeoutGraceMs,
        now: Date.now,
      });
    } catch (err) {
      if (err instanceof DialogueTimeoutError) return this.budgetExceeded(turn, version, language, lock);
      throw err;
    }
    return this.saved(
      await stepAnswerOf(this.answers, this.shared, turn, version, step, language, outcome, samePage),
      lock,
    );
  }

  /** The machine did not settle: the previous screen again with a "try again" line; state unchanged. */
  private async budgetExceeded(
    turn: Turn,
    version: Version,
    language: string,
    lock: LockedHop,
  ): Promise<HopOutcome> {
    const record = turn.record;
    const previous = record ? await this.storedScreen(record) : undefined;
    if (!record || !previous) return this.end(language, TEXTS.timeout, 'timeout');
    const screen = { ...previous, body: [{ key: TEXTS.timeout }, ...previous.body] };
    return this.saved(this.answer(turn, version, { ...record }, screen, 'timeout'), lock);
  }

  private answer(
    turn: Turn,
    version: Version,
    body: RecordBody,
    screen: Screen,
    outcome: Outcome,
    page = 1,
  ): PureHop<HopOutcome> {
    return answerOf(this.answers, turn, version.id, body, screen, outcome, page);
  }

  /**
   * Saves the answer's record and unlocks: its answer, or "interrupted" when the lock was lost
   * before the save (Redis flushed or restarted empty under the hop): the hop's work ran — a Buy
   * may have gone through — so the caller is never invited to try again.
   */
  private async saved(answered: PureHop<HopOutcome>, lock: LockedHop): Promise<HopOutcome> {
    if (await lock.save(answered.record, answered.ttlS)) return answered.answer;
    log.warn('session lock lost before save: answering interrupted');
    return this.end(answered.record.language, TEXTS.interrupted, 'busy');
  }

  /**
   * The screen a stored dialogue shows, drawn by its own version, its shared context put back
   * first (a screen may read the catalogue); undefined without a snapshot, of a version this
   * build does not know, or when its shared context is gone.
   */
  private async storedScreen(record: SessionRecord): Promise<Screen | undefined> {
    if (!storedContext(record)) return undefined;
    const shared = await this.shared.valuesOf(record.shared);
    return shared === null ? undefined : this.versions.screenOf(record, shared);
  }

  private end(language: string, key: string, outcome: Outcome): HopOutcome {
    return { reply: { text: this.options.locales.t(language, key), end: true }, outcome };
  }
}

/** What a hop under the lock saves with, and when its machine must have settled. */
interface LockedHop {
  save: SaveAndUnlock;
  deadline: number;
}
