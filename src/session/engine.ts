import { createActor, waitFor, type AnyActorRef, type AnyStateMachine, type Snapshot } from 'xstate';
import type { UssdHop, UssdReply, UssdSessionEnd } from '../channels/ussd/types';
import type { Locales } from '../i18n';
import { componentLogger, maskMsisdn, withLogContext, type LogContext } from '../observability/logger';
import {
  RESUMABLE_TAG,
  SETTLED_TAG,
  type DialogueEvent,
  type DialogueInput,
  type LocalText,
  type Screen,
} from './dialogue';
import { deriveInput, readInput } from './input';
import { renderDialogueScreen, type RenderedDialogueScreen } from './render';
import type { ResumeCandidate, SessionRecord, SessionRef, SessionStore } from './store/types';

const log = componentLogger('ussd-engine');

/** Message keys of the screens the engine itself shows (not the machine). */
export interface EngineTexts {
  /** Another hop of the session is still running. */
  busy: string;
  /** Prepended to the previous screen when the machine did not settle within the hop budget. */
  timeout: string;
  /** A hop from another number, a hop on a finished dialogue, an internal failure. */
  unavailable: string;
  /**
   * The hop could not finish within its budget or the store failed (Redis restarting): the
   * dialogue is kept, and a Buy that may have gone through is not invited again.
   */
  interrupted: string;
  /** Redraw reason on the resume prompt. */
  invalidChoice: string;
  resumePrompt: string;
  resumeYes: string;
  resumeNo: string;
}

const DEFAULT_TEXTS: EngineTexts = {
  busy: 'error.timeout',
  timeout: 'error.timeout',
  unavailable: 'error.serviceUnavailable',
  interrupted: 'error.hopInterrupted',
  invalidChoice: 'error.invalidChoice',
  resumePrompt: 'resume.prompt',
  resumeYes: 'resume.yes',
  resumeNo: 'resume.no',
};

const RESUME_YES = 'resume:yes';
const RESUME_NO = 'resume:no';

export interface HopEngineOptions {
  store: SessionStore;
  /** The dialogue machine (contract: src/session/dialogue.ts). */
  machine: AnyStateMachine;
  /** Stored with every snapshot; a snapshot of another version is discarded (fresh menu). */
  machineVersion: string;
  locales: Locales;
  /** Screen limit of the aggregator, counted as phones count (default 182). */
  screenLimit: number;
  /** Whole time a hop may take, lock wait included; below the aggregator's timeout. */
  hopBudgetMs: number;
  /** TTL of a dialogue's record, refreshed on every hop. */
  sessionTtlS: number;
  /** How long a dropped dialogue can be resumed by a new session of the same caller (0: never). */
  resumeWindowS: number;
  /** Language tag when the caller has no remembered preference. */
  defaultLanguage: string;
  /** Language tag for a caller without preference (e.g. by country code), before `defaultLanguage`. */
  languageForMsisdn?: (msisdn: string) => string | undefined;
  /** TTL of a finished dialogue's replay record (default: `sessionTtlS`, past any late hop). */
  finalTtlS?: number;
  texts?: Partial<EngineTexts>;
  now?: () => number;
}

/** The hop engine: load + lock → feed one event → settle → render → save + unlock. */
export interface HopEngine {
  /** Answers one hop; never throws (an internal failure answers a polite END). */
  handleHop(hop: UssdHop): Promise<UssdReply>;
  /** Applies an aggregator's end-of-session notification. */
  endSession(end: UssdSessionEnd): Promise<'ended' | 'ignored'>;
}

/** What one hop did, for its log line. */
interface HopOutcome {
  reply: UssdReply;
  outcome:
    'new' | 'event' | 'page' | 'replay' | 'busy' | 'refused' | 'ended' | 'resume' | 'timeout' | 'failure';
  state?: unknown;
}

type Held = { token: string; record: SessionRecord | null };

/** The part of a record a hop decides; the engine fills in identity, request and timestamps. */
type RecordBody = Pick<
  SessionRecord,
  'snapshot' | 'lastReply' | 'page' | 'pages' | 'optionIds' | 'language' | 'status'
> & {
  resume?: ResumeCandidate;
};

interface DialogueContext {
  screen?: Screen;
  language?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class TimeoutError extends Error {}

/** The whole hop overran its budget (a store that does not answer). */
class BudgetExceededError extends Error {
  constructor() {
    super('hop exceeded its budget');
  }
}

/** The dialogue machine failed (a snapshot it cannot restore, a bug): not the store's fault. */
class DialogueError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export function createHopEngine(options: HopEngineOptions): HopEngine {
  const { store, machine, machineVersion, locales, screenLimit, hopBudgetMs, sessionTtlS, resumeWindowS } =
    options;
  const now = options.now ?? Date.now;
  const texts: EngineTexts = { ...DEFAULT_TEXTS, ...options.texts };
  const finalTtlS = options.finalTtlS ?? sessionTtlS;
  // A dropped dialogue must outlive its resume window.
  const activeTtlS = Math.max(sessionTtlS, resumeWindowS);
  // The lock outlives the hop budget so a slow hop keeps it until it saves.
  const lockMs = hopBudgetMs + 2000;
  // Reserved at the end of the budget for the machine to settle on its retry screen after TIMEOUT.
  const timeoutGraceMs = Math.min(1000, Math.floor(hopBudgetMs / 5));
  // Reserved after the machine's deadline for the save and unlock, inside the whole-hop budget.
  const storeReserveMs = Math.min(1000, Math.floor(hopBudgetMs / 5));

  const t = (language: string, key: string) => locales.t(language, key);
  const end = (language: string, key: string): UssdReply => ({ text: t(language, key), end: true });

  /** Takes the lock, waiting (bounded) while another hop of the session holds it. */
  async function acquire(ref: SessionRef, waitUntil: number): Promise<Held | null> {
    let pause = 5;
    for (;;) {
      const lock = await store.loadAndLock(ref, lockMs);
      if (lock.kind === 'locked') return lock;
      if (now() + pause > waitUntil) return null;
      await sleep(pause);
      pause = Math.min(pause * 2, 50);
    }
  }

  function render(screen: Screen, language: string, page = 1): RenderedDialogueScreen {
    return renderDialogueScreen(locales, screen, language, screenLimit, page);
  }

  /** A dropped dialogue is worth resuming only part-way into a purchase (see RESUMABLE_TAG). */
  function isResumable(snapshot: unknown): boolean {
    try {
      return createActor(machine, { snapshot: snapshot as Snapshot<unknown> })
        .getSnapshot()
        .hasTag(RESUMABLE_TAG);
    } catch {
      return false;
    }
  }

  function resumeScreen(notice?: LocalText): Screen {
    return {
      body: [...(notice ? [notice] : []), { key: texts.resumePrompt }],
      options: [
        { id: RESUME_YES, label: { key: texts.resumeYes } },
        { id: RESUME_NO, label: { key: texts.resumeNo } },
      ],
    };
  }

  function screenOf(snapshot: unknown): Screen | undefined {
    return (snapshot as { context?: DialogueContext } | null)?.context?.screen;
  }

  /** Waits for a settled snapshot; on budget, sends TIMEOUT and waits the grace time. */
  async function settle(actor: AnyActorRef, deadline: number): Promise<void> {
    const settled = (s: { status: string; hasTag(tag: string): boolean }) =>
      s.status === 'done' || s.hasTag(SETTLED_TAG);
    // Most hops settle synchronously (no service call): no timer, no subscription.
    if (settled(actor.getSnapshot())) return;
    try {
      await waitFor(actor, settled, { timeout: Math.max(1, deadline - timeoutGraceMs - now()) });
      return;
    } catch (err) {
      if (actor.getSnapshot().status === 'error') throw err;
    }
    actor.send({ type: 'TIMEOUT' });
    try {
      await waitFor(actor, settled, { timeout: Math.max(1, deadline - now()) });
    } catch (err) {
      if (actor.getSnapshot().status === 'error') throw err;
      throw new TimeoutError('dialogue did not settle within the hop budget');
    }
  }

  /**
   * Runs the machine for one hop: from `snapshot` (or fresh), feeding `event` (or none), until
   * it settles. The actor is stopped before returning, so nothing keeps running after the hop.
   */
  async function run(
    start: { snapshot: unknown } | { input: DialogueInput },
    event: DialogueEvent | null,
    deadline: number,
  ): Promise<{ persisted: unknown; value: unknown; done: boolean; context: DialogueContext }> {
    const actor =
      'snapshot' in start
        ? createActor(machine, { snapshot: start.snapshot as never })
        : createActor(machine, { input: start.input });
    // An observer for errors: without one XState rethrows a machine error globally. Here it is
    // seen by `settle` (status 'error') and becomes the polite failure screen.
    actor.subscribe({ error: () => undefined });
    try {
      actor.start();
      if (event) actor.send(event);
      await settle(actor, deadline);
      const snapshot = actor.getSnapshot();
      return {
        persisted: actor.getPersistedSnapshot(),
        value: snapshot.value,
        done: snapshot.status === 'done',
        context: (snapshot.context ?? {}) as DialogueContext,
      };
    } finally {
      actor.stop();
    }
  }

  async function hop(h: UssdHop, logContext: LogContext, started: number): Promise<HopOutcome> {
    const ref: SessionRef = { aggregator: h.aggregator, sessionId: h.sessionId };
    const deadline = started + hopBudgetMs - storeReserveMs;
    const held = await acquire(ref, started + Math.floor(hopBudgetMs / 2));
    if (!held) return { reply: end(options.defaultLanguage, texts.busy), outcome: 'busy' };
    let saved = false;
    try {
      const record = held.record;
      const hopNo = (record?.hops ?? 0) + 1;
      logContext.requestId = `${h.aggregator}-${h.sessionId}-${hopNo}`;
      const requestKey = h.requestKey ?? (h.text.kind === 'cumulative' ? `c:${h.text.value}` : `n:${hopNo}`);

      if (record && record.msisdn === h.msisdn) {
        if (record.lastRequestKey === requestKey) return { reply: record.lastReply, outcome: 'replay' };
        // A late re-delivery of an earlier hop (its text is a prefix of the last one): it must
        // not rewind the dialogue; the current screen is the best answer.
        const v = h.text.value;
        if (
          h.text.kind === 'cumulative' &&
          !h.requestKey &&
          (v === '' || record.lastText.startsWith(`${v}*`))
        )
          return { reply: record.lastReply, outcome: 'replay' };
      }
      if (record && record.msisdn !== h.msisdn) {
        log.warn('hop refused: msisdn differs from the session', {
          sessionMsisdn: maskMsisdn(record.msisdn),
        });
        return { reply: end(record.language, texts.unavailable), outcome: 'refused' };
      }
      if (record && record.status !== 'active') {
        // A finished dialogue is never resurrected by a late hop.
        return { reply: end(record.language, texts.unavailable), outcome: 'ended' };
      }

      /** Saves the new state; false when the lock was lost (then the answer is "busy"). */
      const save = async (next: RecordBody): Promise<boolean> => {
        const full: SessionRecord = {
          machineVersion,
          snapshot: next.snapshot,
          msisdn: h.msisdn,
          serviceCode: record?.serviceCode ?? h.serviceCode,
          lastText: h.text.value,
          lastRequestKey: requestKey,
          lastReply: next.lastReply,
          page: next.page,
          pages: next.pages,
          optionIds: next.optionIds,
          language: next.language,
          status: next.status,
          hops: hopNo,
          createdAt: record?.createdAt ?? now(),
          updatedAt: now(),
          ...(next.resume ? { resume: next.resume } : {}),
        };
        const ttl = full.status === 'final' ? finalTtlS : activeTtlS;
        saved = await store.saveAndUnlock(ref, held.token, full, ttl);
        if (!saved) log.warn('session lock lost before save: answering busy');
        return saved;
      };

      /** Runs the machine, renders, saves: the common tail of every machine hop. */
      const advance = async (
        start: { snapshot: unknown } | { input: DialogueInput },
        event: DialogueEvent | null,
        language: string,
        outcome: HopOutcome['outcome'],
      ): Promise<HopOutcome> => {
        let result;
        try {
          result = await run(start, event, deadline);
        } catch (err) {
          if (!(err instanceof TimeoutError)) throw new DialogueError(err);
          return await budgetExceeded(language);
        }
        const screen = result.context.screen;
        if (!screen) throw new Error('dialogue settled without a screen');
        const lang = result.context.language ?? language;
        const rendered = render(screen, lang);
        const final = result.done || screen.final === true;
        const reply = { text: rendered.text, end: final };
        const ok = await save({
          snapshot: final ? null : result.persisted,
          lastReply: reply,
          page: final ? 1 : rendered.page,
          pages: final ? 1 : rendered.pages,
          optionIds: final ? [] : rendered.optionIds,
          language: lang,
          status: final ? 'final' : 'active',
        });
        if (!ok) return { reply: end(lang, texts.busy), outcome: 'busy' };
        // The machine changed the language: remember it for the caller (engine I/O, not the machine's).
        if (lang !== language) await store.setLanguage(h.msisdn, lang);
        return { reply, outcome, state: result.value };
      };

      /** The machine did not settle: the previous screen again with a "try again" line; state unchanged. */
      const budgetExceeded = async (language: string): Promise<HopOutcome> => {
        const previous = record?.snapshot ? screenOf(record.snapshot) : undefined;
        if (!record || !previous) return { reply: end(language, texts.timeout), outcome: 'timeout' };
        const screen = { ...previous, body: [{ key: texts.timeout }, ...previous.body] };
        const rendered = render(screen, record.language);
        const reply = { text: rendered.text, end: false };
        const ok = await save({ ...record, lastReply: reply, page: rendered.page, pages: rendered.pages });
        if (!ok) return { reply: end(language, texts.busy), outcome: 'busy' };
        return { reply, outcome: 'timeout' };
      };

      const fresh = (language: string): { input: DialogueInput } => ({
        input: {
          sessionId: h.sessionId,
          aggregator: h.aggregator,
          msisdn: h.msisdn,
          language,
          serviceCode: record?.serviceCode ?? h.serviceCode,
          startedAt: record?.createdAt ?? now(),
        },
      });

      // First hop: the caller's own keys (one extra round trip), maybe a resume offer.
      if (!record) {
        const caller = await store.startMsisdnSession(h.msisdn, ref, activeTtlS + resumeWindowS);
        const startLanguage =
          caller.language ?? options.languageForMsisdn?.(h.msisdn) ?? options.defaultLanguage;
        if (resumeWindowS > 0 && caller.previous) {
          const old = await store.takeResumable(caller.previous, {
            minUpdatedAt: now() - resumeWindowS * 1000,
            machineVersion,
          });
          if (old && old.msisdn === h.msisdn && (old.resume !== undefined || isResumable(old.snapshot))) {
            const rendered = render(resumeScreen(), old.language);
            const reply = { text: rendered.text, end: false };
            const ok = await save({
              snapshot: old.snapshot,
              lastReply: reply,
              page: 1,
              pages: rendered.pages,
              optionIds: rendered.optionIds,
              language: old.language,
              status: 'active',
              resume: {
                fromSessionId: old.resume?.fromSessionId ?? caller.previous.sessionId,
                page: old.resume?.page ?? old.page,
              },
            });
            if (!ok) return { reply: end(old.language, texts.busy), outcome: 'busy' };
            return { reply, outcome: 'resume' };
          }
        }
        return await advance(fresh(startLanguage), null, startLanguage, 'new');
      }

      const input = deriveInput(record.lastText, h.text);
      const action = readInput(input, record);

      // The resume prompt is the engine's own screen.
      if (record.resume) {
        const choice =
          action.kind === 'event' && action.event.type === 'CHOOSE' ? action.event.optionId : null;
        if (choice === RESUME_YES) {
          const screen = screenOf(record.snapshot);
          if (!screen) return await advance(fresh(record.language), null, record.language, 'new');
          const rendered = render(screen, record.language, record.resume.page);
          const reply = { text: rendered.text, end: false };
          const { resume: _dropped, ...rest } = record;
          const ok = await save({
            ...rest,
            lastReply: reply,
            page: rendered.page,
            pages: rendered.pages,
            optionIds: rendered.optionIds,
          });
          if (!ok) return { reply: end(record.language, texts.busy), outcome: 'busy' };
          return { reply, outcome: 'resume' };
        }
        if (choice === RESUME_NO) return await advance(fresh(record.language), null, record.language, 'new');
        const rendered = render(resumeScreen({ key: texts.invalidChoice }), record.language);
        const reply = { text: rendered.text, end: false };
        const ok = await save({ ...record, lastReply: reply });
        if (!ok) return { reply: end(record.language, texts.busy), outcome: 'busy' };
        return { reply, outcome: 'resume' };
      }

      // A snapshot of another machine version (or none) cannot be restored: a clear fresh menu.
      if (record.machineVersion !== machineVersion || !record.snapshot) {
        log.info('discarding a snapshot of another machine version', { stored: record.machineVersion });
        return await advance(fresh(record.language), null, record.language, 'new');
      }

      if (action.kind === 'page') {
        const screen = screenOf(record.snapshot);
        if (!screen) throw new Error('stored snapshot has no screen');
        const rendered = render(screen, record.language, action.page);
        const reply = { text: rendered.text, end: false };
        const ok = await save({ ...record, lastReply: reply, page: rendered.page, pages: rendered.pages });
        if (!ok) return { reply: end(record.language, texts.busy), outcome: 'busy' };
        return { reply, outcome: 'page' };
      }

      try {
        return await advance({ snapshot: record.snapshot }, action.event, record.language, 'event');
      } catch (err) {
        // Only the machine's own failure resets the dialogue; a store error (Redis restarting)
        // keeps it for the next dial, and costs no further Redis calls now.
        if (saved || !(err instanceof DialogueError)) throw err;
        // A snapshot the machine cannot restore is discarded like another version's.
        log.warn('could not continue the stored dialogue: fresh menu', { error: err.cause });
        return await advance(fresh(record.language), null, record.language, 'new');
      }
    } finally {
      if (!saved) await store.unlock(ref, held.token).catch(() => undefined);
    }
  }

  async function handleHop(h: UssdHop): Promise<UssdReply> {
    const logContext: LogContext = { requestId: `${h.aggregator}-${h.sessionId}-0` };
    return withLogContext(logContext, async () => {
      const started = now();
      let result: HopOutcome;
      try {
        result = await withinBudget(hop(h, logContext, started), started + hopBudgetMs);
      } catch (err) {
        const infrastructure = !(err instanceof DialogueError);
        log.error(infrastructure ? 'hop interrupted: store failure or budget exceeded' : 'hop failed', {
          error: err instanceof DialogueError ? err.cause : err,
        });
        const text = infrastructure ? texts.interrupted : texts.unavailable;
        result = { reply: end(options.defaultLanguage, text), outcome: 'failure' };
      }
      log.info('hop', {
        aggregator: h.aggregator,
        msisdn: maskMsisdn(h.msisdn),
        outcome: result.outcome,
        state: result.state === undefined ? undefined : JSON.stringify(result.state),
        durationMs: now() - started,
        end: result.reply.end,
      });
      return result.reply;
    });
  }

  /**
   * The whole hop — lock wait, machine, save and unlock — answers within the budget: past it the
   * hop goes on in the background (its save still lands) and the caller gets `interrupted`.
   */
  function withinBudget(work: Promise<HopOutcome>, deadline: number): Promise<HopOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new BudgetExceededError()), Math.max(0, deadline - now()));
    });
    work.catch(() => undefined); // a late failure of the abandoned hop is not unhandled
    return Promise.race([work, overrun]).finally(() => clearTimeout(timer));
  }

  async function endSession(e: UssdSessionEnd): Promise<'ended' | 'ignored'> {
    const ref: SessionRef = { aggregator: e.aggregator, sessionId: e.sessionId };
    return withLogContext({ requestId: `${e.aggregator}-${e.sessionId}-end` }, async () => {
      const held = await acquire(ref, now() + hopBudgetMs);
      if (!held) {
        log.warn('end notification: session stayed busy, ignored');
        return 'ignored';
      }
      let saved = false;
      try {
        const record = held.record;
        if (!record || record.msisdn !== e.msisdn || record.status !== 'active') return 'ignored';
        const keep = e.status !== 'completed' && resumeWindowS > 0 && record.snapshot !== null;
        const next: SessionRecord = keep
          ? { ...record, status: e.status }
          : { ...record, status: e.status, snapshot: null, optionIds: [], resume: undefined };
        saved = await store.saveAndUnlock(ref, held.token, next, keep ? activeTtlS : finalTtlS);
        log.info('session ended', { status: e.status, resumable: keep, msisdn: maskMsisdn(e.msisdn) });
        return saved ? 'ended' : 'ignored';
      } finally {
        if (!saved) await store.unlock(ref, held.token).catch(() => undefined);
      }
    });
  }

  return { handleHop, endSession };
}
