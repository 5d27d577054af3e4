import type { AnyStateMachine } from 'xstate';
import type { Locales } from '../i18n';
import {
  componentLogger,
  maskMsisdn,
  premasked,
  withLogContext,
  type LogContext,
} from '../observability/logger';
import type { DialogueEvent, Screen } from './dialogue';
import {
  DialogueError,
  DialogueTimeoutError,
  runDialogue,
  stepPurely,
  type DialogueStart,
} from './dialogue-run';
import type { UssdHop, UssdReply, UssdSessionEnd } from './hop';
import { inputStart, maskText, readInput } from './input';
import { renderDialogueScreen } from './render';
import { isResumable, resumeChoice, resumeScreen } from './resume-offer';
import { acquireSession, endDialogue } from './session-lock';
import { SharedContext } from './shared-context';
import type { RecalledRecord, ResumeCandidate, SessionRecord, SessionRef, SessionStore } from './store/types';

const log = componentLogger('ussd-engine');

/** Message keys of the screens the engine itself shows (not the machine). */
const TEXTS = {
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

export interface HopEngineOptions {
  store: SessionStore;
  /** The dialogue machine (contract: src/session/dialogue.ts). */
  machine: AnyStateMachine;
  /** Stored with every snapshot; a snapshot of another version is discarded (fresh menu). */
  machineVersion: string;
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
   * per content instead of in every snapshot (src/session/shared-context.ts). Default: none.
   */
  sharedContextKeys?: readonly string[];
  /**
   * The screen a settled dialogue's context shows (contract: src/session/dialogue.ts). Default:
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

type Outcome =
  'new' | 'event' | 'page' | 'replay' | 'busy' | 'refused' | 'ended' | 'resume' | 'timeout' | 'failure';

/** What one hop did, for its log line. */
interface HopOutcome {
  reply: UssdReply;
  outcome: Outcome;
  state?: unknown;
}

/** The part of a record a hop decides; the engine fills in identity, request and timestamps. */
type RecordBody = Pick<
  SessionRecord,
  'snapshot' | 'lastReply' | 'page' | 'pages' | 'optionIds' | 'language' | 'status' | 'shared'
> & { resume?: ResumeCandidate };

/** One hop in progress: the locked session and what identifies this request. */
interface Turn {
  hop: UssdHop;
  ref: SessionRef;
  /** The lock's token; empty on a quick hop, which holds no lock. */
  token: string;
  /**
   * A quick hop (see {@link Engine.quickHop}): the version of the remembered record it runs on.
   * It may only step the machine purely and save with `saveIfCurrent`.
   */
  basedOn?: string;
  record: SessionRecord | null;
  hopNo: number;
  requestKey: string;
  /** The hop's text as stored: secret inputs masked. */
  storedText: string;
  secretRanges: [number, number][] | undefined;
  /** When the machine must have settled (the rest of the budget is the store's). */
  deadline: number;
  /** Set once the record was saved (which also unlocked it). */
  saved: boolean;
}

/** A person reads a screen before answering: the same input again this soon is the aggregator re-sending it. */
export const LATEST_REDELIVERY_MS = 3000;

/**
 * Latest-input formats: a hop flagged new on a session that already answered is its start
 * re-sent; without a sequence (Arkesel, Nalo, Cellulant, Comviva), the same input as the last
 * hop within {@link LATEST_REDELIVERY_MS} of its answer is that hop re-sent. Either gets the
 * stored reply.
 */
function isLatestRedelivery(hop: UssdHop, record: SessionRecord, storedText: string): boolean {
  if (hop.isNew) return true;
  // With a sequence (Hubtel), only the key decides (checked before this).
  if (hop.requestKey) return false;
  return record.lastText === storedText && Date.now() - record.updatedAt < LATEST_REDELIVERY_MS;
}

/**
 * The hop's text as the session may store it: the secret ranges known so far masked, and the
 * new input masked too when the screen shown asked for a secret (an agent's PIN).
 */
function storedTextOf(
  hop: UssdHop,
  record: SessionRecord | null,
): { storedText: string; secretRanges: [number, number][] | undefined } {
  const value = hop.text.value;
  const known = hop.text.kind === 'cumulative' ? record?.secretRanges : undefined;
  const masked = maskText(value, known);
  if (!record?.secretInput) return { storedText: masked, secretRanges: known };
  const start = inputStart(record.lastText, { kind: hop.text.kind, value: masked });
  const ranges: [number, number][] = [...(known ?? []), [start, value.length]];
  return {
    storedText: maskText(value, ranges),
    secretRanges: hop.text.kind === 'cumulative' ? ranges : undefined,
  };
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/**
 * A quick hop cannot finish without the lock (it would call a service, answer a replay, or the
 * record changed): nothing was written. Carries the lock and record when the failed save took them.
 * A signal caught by `quickHop`, never a failure: not an Error, so throwing one (on every hop that
 * calls a service) captures no stack.
 */
class NeedsLock {
  constructor(readonly held?: { token: string; record: SessionRecord | null }) {}
}

/** The NeedsLock of a quick hop that took nothing: one for all. */
const NEEDS_LOCK = new NeedsLock();

/** The whole hop overran its budget (a store that does not answer). */
class BudgetExceededError extends Error {
  constructor() {
    super('hop exceeded its budget');
  }
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
  private readonly screenOf: (context: object) => Screen | undefined;

  constructor(private readonly options: HopEngineOptions) {
    this.store = options.store;
    this.screenOf =
      (options.screenOf as ((context: object) => Screen | undefined) | undefined) ??
      ((context) => (context as { screen?: Screen }).screen);
    this.activeTtlS = Math.max(options.sessionTtlS, options.resumeWindowS);
    // A record lives its TTL after its last save; a resumed one, the resume window more.
    this.shared = new SharedContext(
      options.store,
      options.sharedContextKeys ?? [],
      this.activeTtlS + options.resumeWindowS,
    );
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
        result = await this.withinBudget(this.hop(hop, logContext, started), started);
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

  /**
   * The whole hop — lock wait, machine, save and unlock — answers within the budget: past it the
   * hop goes on in the background (its save still lands) and the caller gets `interrupted`.
   */
  private withinBudget(work: Promise<HopOutcome>, started: number): Promise<HopOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_resolve, reject) => {
      const left = started + this.options.hopBudgetMs - Date.now();
      timer = setTimeout(() => reject(new BudgetExceededError()), Math.max(0, left));
    });
    work.catch(() => undefined); // a late failure of the abandoned hop is not unhandled
    return Promise.race([work, overrun]).finally(() => clearTimeout(timer));
  }

  private async hop(hop: UssdHop, logContext: LogContext, started: number): Promise<HopOutcome> {
    const ref: SessionRef = { aggregator: hop.aggregator, sessionId: hop.sessionId };
    const recalled = this.store.recall(ref);
    let held: { token: string; record: SessionRecord | null } | null | undefined;
    if (recalled) {
      const turn = this.turnOf(hop, ref, '', recalled.record, started);
      logContext.requestId = `${hop.aggregator}-${hop.sessionId}-${turn.hopNo}`;
      const quick = await this.quickHop(turn, recalled);
      if (!(quick instanceof NeedsLock)) return quick;
      held = quick.held;
    }
    held ??= await acquireSession(
      this.store,
      ref,
      this.lockMs,
      started + Math.floor(this.options.hopBudgetMs / 2),
    );
    if (!held) return this.end(this.options.defaultLanguage, TEXTS.busy, 'busy');
    const turn = this.turnOf(hop, ref, held.token, held.record, started);
    logContext.requestId = `${hop.aggregator}-${hop.sessionId}-${turn.hopNo}`;
    try {
      return await this.decide(turn);
    } finally {
      if (!turn.saved) await this.store.unlock(ref, held.token).catch(() => undefined);
    }
  }

  /**
   * A hop on the record this process remembers, without the lock: when it is an event the
   * machine settles on purely (no service to call), its record is saved in one round trip, if
   * no hop holds the lock and the stored record is still the remembered one. Anything else (a
   * service to call, a replay, a refusal, a changed record) comes back as NeedsLock, with
   * nothing written, and the hop is done again under the lock: a pure step has no effect to undo.
   */
  private async quickHop(turn: Turn, recalled: RecalledRecord): Promise<HopOutcome | NeedsLock> {
    turn.basedOn = recalled.version;
    try {
      return await this.decide(turn);
    } catch (err) {
      if (err instanceof NeedsLock) return err;
      throw err;
    }
  }

  /** A hop's turn on `record` (locked with `token`, or remembered for a quick hop). */
  private turnOf(
    hop: UssdHop,
    ref: SessionRef,
    token: string,
    record: SessionRecord | null,
    started: number,
  ): Turn {
    const hopNo = (record?.hops ?? 0) + 1;
    const { storedText, secretRanges } = storedTextOf(hop, record);
    return {
      hop,
      ref,
      token,
      record,
      hopNo,
      requestKey: hop.requestKey ?? (hop.text.kind === 'cumulative' ? `c:${storedText}` : `n:${hopNo}`),
      storedText,
      secretRanges,
      deadline: started + this.options.hopBudgetMs - this.storeReserveMs,
      saved: false,
    };
  }

  /**
   * The answers a hop gets without stepping the machine: a refusal (another number), a replay
   * of a re-delivered hop, or "ended" for a finished dialogue; null for a hop to step.
   */
  private answerAsIs(turn: Turn, record: SessionRecord): HopOutcome | null {
    const { hop } = turn;
    if (record.msisdn !== hop.msisdn) return this.end(record.language, TEXTS.ended, 'refused');
    if (record.lastRequestKey === turn.requestKey) return { reply: record.lastReply, outcome: 'replay' };
    if (hop.text.kind === 'latest' && isLatestRedelivery(hop, record, turn.storedText))
      return { reply: record.lastReply, outcome: 'replay' };
    // A late re-delivery of an earlier hop (its text is a prefix of the last one) must not rewind
    // the dialogue: the current screen is the best answer.
    const text = turn.storedText;
    if (
      hop.text.kind === 'cumulative' &&
      !hop.requestKey &&
      (text === '' || record.lastText.startsWith(`${text}*`))
    )
      return { reply: record.lastReply, outcome: 'replay' };
    // A finished dialogue is never resurrected by a late hop.
    if (record.status !== 'active') return this.end(record.language, TEXTS.ended, 'ended');
    return null;
  }

  /** What this hop is: a re-delivery, a refusal, the first hop, the resume answer, a page, an event. */
  private async decide(turn: Turn): Promise<HopOutcome> {
    const { hop, record } = turn;
    if (!record) return this.firstHop(turn);
    const early = this.answerAsIs(turn, record);
    if (early) {
      // Only the record under the lock is sure to be the latest: a remembered one may not be.
      if (turn.basedOn !== undefined) throw NEEDS_LOCK;
      if (early.outcome === 'refused')
        log.warn('hop refused: msisdn differs from the session', {
          sessionMsisdn: maskMsisdn(record.msisdn),
        });
      return early;
    }
    // Positions in the masked text are positions in the real one: the input is read unmasked.
    const start = inputStart(record.lastText, { kind: hop.text.kind, value: turn.storedText });
    const action = readInput(hop.text.value.slice(start).trim(), record);
    if (record.resume) return this.underLock(turn) ?? this.resumeAnswer(turn, record, action);
    // A snapshot of another machine version (or none) cannot be restored: a clear fresh menu.
    if (record.machineVersion !== this.options.machineVersion || !record.snapshot) {
      this.underLock(turn);
      log.info('discarding a snapshot of another machine version', { stored: record.machineVersion });
      return this.step(turn, this.fresh(turn, record.language), null, record.language, 'new');
    }
    if (action.kind === 'page') {
      const screen = await this.storedScreen(record);
      if (!screen) throw new DialogueError(new Error('stored snapshot has no screen'));
      return this.show(turn, { ...record }, screen, record.language, 'page', action.page);
    }
    // A choice that matched nothing redraws the same list: on the page it was typed on.
    const samePage = action.event.type === 'TEXT' && record.page > 1 ? record : undefined;
    const shared = await this.shared.valuesOf(record.shared);
    if (shared === null) {
      this.underLock(turn);
      log.warn('the shared context of the stored dialogue is gone: fresh menu', { shared: record.shared });
      return this.step(turn, this.fresh(turn, record.language), null, record.language, 'new');
    }
    try {
      return await this.step(
        turn,
        { snapshot: record.snapshot, shared },
        action.event,
        record.language,
        'event',
        samePage,
      );
    } catch (err) {
      // Only the machine's own failure resets the dialogue; a store error (Redis restarting)
      // keeps it for the next dial, and costs no further Redis calls now.
      if (turn.saved || !(err instanceof DialogueError)) throw err;
      this.underLock(turn);
      log.warn('could not continue the stored dialogue: fresh menu', { error: err.cause });
      return this.step(turn, this.fresh(turn, record.language), null, record.language, 'new');
    }
  }

  /** Goes no further on a quick hop: what follows needs the lock (see {@link Engine.quickHop}). */
  private underLock(turn: Turn): undefined {
    if (turn.basedOn !== undefined) throw NEEDS_LOCK;
    return undefined;
  }

  /** First hop: the caller's own keys (one extra round trip), maybe the resume offer. */
  private async firstHop(turn: Turn): Promise<HopOutcome> {
    const { hop } = turn;
    const { resumeWindowS, machineVersion, machine } = this.options;
    const caller = await this.store.startMsisdnSession(hop.msisdn, turn.ref, this.activeTtlS + resumeWindowS);
    const language = caller.language ?? this.options.defaultLanguage;
    if (resumeWindowS > 0 && caller.previous) {
      const old = await this.store.takeResumable(caller.previous, {
        minUpdatedAt: Date.now() - resumeWindowS * 1000,
        machineVersion,
      });
      const oldScreen = old && old.msisdn === hop.msisdn ? await this.storedScreen(old) : undefined;
      if (old && oldScreen && (old.resume !== undefined || isResumable(machine, old.snapshot, oldScreen))) {
        const resume = {
          fromSessionId: old.resume?.fromSessionId ?? caller.previous.sessionId,
          page: old.resume?.page ?? old.page,
        };
        return this.show(turn, { ...old, resume }, resumeScreen(TEXTS, oldScreen), old.language, 'resume');
      }
    }
    return this.step(turn, this.fresh(turn, language), null, language, 'new');
  }

  /** The caller answered the resume offer: the old screen again, a fresh menu, or the offer again. */
  private async resumeAnswer(
    turn: Turn,
    record: SessionRecord,
    action: ReturnType<typeof readInput>,
  ): Promise<HopOutcome> {
    const choice = resumeChoice(action);
    if (choice === 'fresh')
      return this.step(turn, this.fresh(turn, record.language), null, record.language, 'new');
    const screen = await this.storedScreen(record);
    if (choice === 'invalid')
      return this.show(
        turn,
        { ...record },
        resumeScreen(TEXTS, screen, { key: TEXTS.invalidChoice }),
        record.language,
        'resume',
      );
    if (!screen) return this.step(turn, this.fresh(turn, record.language), null, record.language, 'new');
    const { resume, ...rest } = record;
    return this.show(turn, rest, screen, record.language, 'resume', resume?.page ?? 1);
  }

  /** Runs the machine for this hop, then answers its screen. */
  private async step(
    turn: Turn,
    start: DialogueStart,
    event: DialogueEvent | null,
    language: string,
    outcome: Outcome,
    shown?: Pick<SessionRecord, 'page' | 'optionIds'>,
  ): Promise<HopOutcome> {
    let step;
    try {
      if (turn.basedOn !== undefined) {
        // A quick hop steps purely or not at all: no service may be called without the lock.
        step =
          'snapshot' in start && event
            ? stepPurely(this.options.machine, start, event, this.shared.fields)
            : null;
        if (!step) throw NEEDS_LOCK;
      } else
        step = await runDialogue(
          this.options.machine,
          start,
          event,
          { at: turn.deadline, graceMs: this.timeoutGraceMs, now: Date.now },
          this.shared.fields,
        );
    } catch (err) {
      if (err instanceof DialogueTimeoutError) return this.budgetExceeded(turn, language);
      throw err;
    }
    const screen = this.screenOf(step.context);
    if (!screen) throw new DialogueError(new Error('dialogue settled without a screen'));
    const lang = step.context.language ?? language;
    const final = step.done || screen.final === true;
    const sameList =
      shown !== undefined &&
      !final &&
      sameIds(
        shown.optionIds,
        (screen.options ?? []).map((o) => o.id),
      );
    const stored = final
      ? { snapshot: null }
      : { snapshot: step.persisted, shared: await this.shared.nameOf(step.shared) };
    const answered = await this.show(
      turn,
      { ...stored, language: lang },
      screen,
      lang,
      outcome,
      sameList ? shown.page : 1,
    );
    if (answered.outcome === 'busy') return answered;
    // The machine changed the language: remember it for the caller (engine I/O, not the machine's).
    if (lang !== language) await this.store.setLanguage(turn.hop.msisdn, lang);
    return { ...answered, state: step.value };
  }

  /** The machine did not settle: the previous screen again with a "try again" line; state unchanged. */
  private async budgetExceeded(turn: Turn, language: string): Promise<HopOutcome> {
    const record = turn.record;
    const previous = record ? await this.storedScreen(record) : undefined;
    if (!record || !previous) return this.end(language, TEXTS.timeout, 'timeout');
    const screen = { ...previous, body: [{ key: TEXTS.timeout }, ...previous.body] };
    return this.show(turn, { ...record }, screen, record.language, 'timeout', 1);
  }

  /**
   * The one answer step: render `screen` (at `page`), save the record with it, and answer it —
   * or "busy" when the lock was lost before the save.
   */
  private async show(
    turn: Turn,
    body: Partial<RecordBody> & Pick<RecordBody, 'snapshot' | 'language'>,
    screen: Screen,
    language: string,
    outcome: Outcome,
    page = 1,
  ): Promise<HopOutcome> {
    const rendered = renderDialogueScreen(
      this.options.locales,
      screen,
      language,
      turn.hop.screenLimit ?? this.options.screenLimit,
      page,
    );
    const final = screen.final === true || body.snapshot === null;
    const choice = !final && !screen.expectsText && rendered.optionIds.length > 0;
    const reply: UssdReply = { text: rendered.text, end: final, ...(choice && { choice }) };
    const record: SessionRecord = {
      machineVersion: this.options.machineVersion,
      snapshot: body.snapshot,
      msisdn: turn.hop.msisdn,
      serviceCode: turn.record?.serviceCode ?? turn.hop.serviceCode,
      lastText: turn.storedText,
      lastRequestKey: turn.requestKey,
      ...(turn.secretRanges ? { secretRanges: turn.secretRanges } : {}),
      ...(screen.secret && !final ? { secretInput: true } : {}),
      lastReply: reply,
      page: final ? 1 : rendered.page,
      pages: final ? 1 : rendered.pages,
      optionIds: final ? [] : rendered.optionIds,
      language,
      status: final ? 'final' : 'active',
      hops: turn.hopNo,
      createdAt: turn.record?.createdAt ?? Date.now(),
      updatedAt: Date.now(),
      ...(body.resume ? { resume: body.resume } : {}),
      ...(body.shared && body.snapshot !== null ? { shared: body.shared } : {}),
    };
    const ttl = final ? this.options.sessionTtlS : this.activeTtlS;
    if (turn.basedOn !== undefined) {
      if (outcome !== 'event' && outcome !== 'page') throw NEEDS_LOCK;
      const quick = await this.store.saveIfCurrent(turn.ref, turn.basedOn, record, ttl, this.lockMs);
      if (quick.kind === 'busy') throw NEEDS_LOCK;
      if (quick.kind === 'locked') throw new NeedsLock(quick);
      turn.saved = true;
      return { reply, outcome };
    }
    turn.saved = await this.store.saveAndUnlock(turn.ref, turn.token, record, ttl);
    if (!turn.saved) {
      log.warn('session lock lost before save: answering busy');
      return this.end(language, TEXTS.busy, 'busy');
    }
    return { reply, outcome };
  }

  /**
   * The screen a stored dialogue shows, its shared context put back first (a screen may read
   * the catalogue); undefined without a snapshot, or when its shared context is gone.
   */
  private async storedScreen(record: SessionRecord): Promise<Screen | undefined> {
    const context = (record.snapshot as { context?: object } | null)?.context;
    if (!context) return undefined;
    const shared = await this.shared.valuesOf(record.shared);
    if (shared === null) return undefined;
    return this.screenOf(shared ? { ...context, ...shared } : context);
  }

  /** A fresh dialogue for this caller (the session's creation time and service code kept). */
  private fresh(turn: Turn, language: string): DialogueStart {
    const { hop, record } = turn;
    return {
      input: {
        sessionId: hop.sessionId,
        aggregator: hop.aggregator,
        msisdn: hop.msisdn,
        language,
        serviceCode: record?.serviceCode ?? hop.serviceCode,
        startedAt: record?.createdAt ?? Date.now(),
      },
    };
  }

  private end(language: string, key: string, outcome: Outcome): HopOutcome {
    return { reply: { text: this.options.locales.t(language, key), end: true }, outcome };
  }
}
