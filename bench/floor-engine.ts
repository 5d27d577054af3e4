/**
 * The benchmark's floor: a hop engine that does, for the bench's five-hop electricity dialogue,
 * the work the gateway's guarantees require and nothing of the dialogue itself — no XState, no
 * rendering, no engine decisions (constant screens). It is served by the real gateway
 * (`startGateway` with `hopEngine`): the same HTTP path, adapters, metrics and money path.
 *
 * Per hop, as the gateway and by the same module (src/ussd/engine/hop-protocol.ts): the session's
 * lock in Redis around every hop that calls a service (`loadAndLock` … `saveAndUnlock`), one
 * script for a hop that calls none (`saveIfCurrent` on the remembered record), replay and MSISDN
 * binding checks, and one JSON info line. The first hop
 * reads the caller's keys (and the previous dialogue when there may be one to resume), the
 * catalogue, the debit account and the agent registry; the quote checks the spending rules and
 * validates with the purchase service; the Buy hands the intent to the purchase desk (a durable
 * record, the daily spend reserved, a lifecycle job) — the same `DialogueServices` calls the
 * dialogue's actors make. What the gateway spends beyond this per hop is its dialogue engine.
 */
import type { DialogueServices } from '../machines/ussd-session.machine';
import { componentLogger, maskMsisdn, premasked, withLogContext } from '../src/observability/logger';
import { purchaseRequest } from '../src/purchases/request';
import type { PurchaseIntent } from '../src/purchases/types';
import type { HopEngine } from '../src/ussd/engine/engine';
import { playHop } from '../src/ussd/engine/hop-protocol';
import type { UssdHop, UssdReply } from '../src/ussd/engine/hop';
import type { SessionRecord, SessionRef, SessionStore } from '../src/ussd/engine/store';

const log = componentLogger('ussd-engine');

const LOCK_MS = 10_000;
/** How long a hop waits for a lock another hop holds: half the gateway's default hop budget. */
const WAIT_MS = 4_000;
const TTL_S = 180;

/** What a hop answers, and what it came to for its log line. */
interface FloorAnswer {
  reply: UssdReply;
  outcome: string;
}

const BUSY: FloorAnswer = { reply: { text: 'Please try again.', end: true }, outcome: 'busy' };

/** What a floor dialogue keeps between hops: the answers so far and the quoted intent. */
interface FloorState {
  meter?: string;
  amountMinor?: number;
  intent?: PurchaseIntent;
  total?: { currency: string; minor: number };
}

const SCREENS = [
  'Welcome! Choose a service:\n1 Electricity\n2 Airtime\n3 Water\n4 My tokens\n5 Language',
  'Enter meter number (11 to 13 digits):\n0 Back\n00 Home',
  'Enter the amount (BWP 5.00 to BWP 5000.00):\n0 Back\n00 Home',
];

export function floorEngine(parts: { store: SessionStore; services: DialogueServices }): HopEngine {
  const { store, services } = parts;

  /** The record a hop saves: the fields the gateway's records have, the floor's state as snapshot. */
  const recordOf = (hop: UssdHop, previous: SessionRecord | null, state: FloorState, reply: UssdReply) => ({
    machineVersion: 'floor',
    snapshot: reply.end ? null : state,
    msisdn: hop.msisdn,
    serviceCode: previous?.serviceCode ?? hop.serviceCode,
    lastText: hop.text.value,
    lastRequestKey: `c:${hop.text.value}`,
    lastReply: reply,
    page: 1,
    pages: 1,
    optionIds: [],
    language: 'en-BW',
    status: reply.end ? ('final' as const) : ('active' as const),
    hops: (previous?.hops ?? 0) + 1,
    createdAt: previous?.createdAt ?? Date.now(),
    updatedAt: Date.now(),
  });

  /** The hop under the session's lock: what it answers and the state it leaves. */
  async function locked(
    hop: UssdHop,
    ref: SessionRef,
    record: SessionRecord | null,
    inputs: string[],
  ): Promise<{ reply: UssdReply; state: FloorState }> {
    const state = { ...((record?.snapshot as FloorState | null) ?? {}) };
    if (inputs.length === 0) {
      const caller = await store.startMsisdnSession(hop.msisdn, ref, TTL_S);
      if (caller.previous)
        await store.takeResumable(caller.previous, {
          minUpdatedAt: Date.now() - TTL_S * 1000,
          machineVersions: ['floor'],
        });
      await Promise.all([services.products(), services.debitAccount(), services.agentOf?.(hop.msisdn)]);
      return { reply: { text: SCREENS[0], end: false, choice: true }, state };
    }
    if (inputs.length === 3) {
      const [products, account] = await Promise.all([services.products(), services.debitAccount()]);
      const intent: PurchaseIntent = {
        productType: 'ELECTRICITY',
        providerCode: products.find((p) => p.productType === 'ELECTRICITY')!.providers[0].code,
        subscriberIdentifier: state.meter!,
        amount: { currency: account.currency, minor: Number(inputs[2]) * 100 },
        debitedAccountId: account.id,
        beneficiaryMsisdn: hop.msisdn,
        requesterMsisdn: hop.msisdn,
        language: 'en-BW',
        channel: 'USSD',
      };
      const refusal = await services.checkSpend?.(intent);
      if (refusal) return { reply: { text: 'Refused.', end: true }, state };
      const tx = await services.quote(purchaseRequest(intent));
      const quoted = { ...intent, subscriberDetails: tx.subscriberDetails ?? null };
      return {
        reply: {
          text: `${tx.subscriberDetails ?? ''}\n${state.meter}\nUnits: ${tx.units ?? '-'}\nTotal: BWP ${tx.total.minor / 100}\n1 Buy\n2 Cancel`,
          end: false,
          choice: true,
        },
        state: { ...state, intent: quoted, total: tx.total },
      };
    }
    await services.order(
      state.intent!,
      `${hop.aggregator}:${hop.sessionId}:${record!.createdAt}`,
      state.total!,
    );
    return { reply: { text: 'Thank you. Your token will arrive by SMS.', end: true }, state };
  }

  /** The meter and amount prompts: no service, the typed meter kept. */
  const prompted = (snapshot: unknown, inputs: string[]) => ({
    reply: { text: SCREENS[inputs.length], end: false },
    state: { ...((snapshot as FloorState | null) ?? {}), ...(inputs.length === 2 && { meter: inputs[1] }) },
  });

  /** One hop by the gateway's hop protocol (src/ussd/engine/hop-protocol.ts), as the gateway plays it. */
  function handle(hop: UssdHop): Promise<FloorAnswer> {
    const ref = { aggregator: hop.aggregator, sessionId: hop.sessionId };
    const inputs = hop.text.value === '' ? [] : hop.text.value.split('*');
    const isPrompt = inputs.length === 1 || inputs.length === 2;
    const requestKey = `c:${hop.text.value}`;
    return playHop<FloorAnswer>(
      store,
      ref,
      { lockMs: LOCK_MS, waitUntil: Date.now() + WAIT_MS },
      {
        // A prompt on the remembered record calls no service: a pure step, saved in one script.
        pure: (record) => {
          if (!isPrompt || record.msisdn !== hop.msisdn || record.lastRequestKey === requestKey) return null;
          const { reply, state } = prompted(record.snapshot, inputs);
          return {
            record: recordOf(hop, record, state, reply),
            ttlS: TTL_S,
            answer: { reply, outcome: 'event' },
          };
        },
        locked: async (record, save) => {
          if (record && record.msisdn !== hop.msisdn)
            return { reply: { text: 'This session has ended.', end: true }, outcome: 'refused' };
          if (record?.lastRequestKey === requestKey) return { reply: record.lastReply, outcome: 'replay' };
          const { reply, state } = isPrompt
            ? prompted(record?.snapshot, inputs)
            : await locked(hop, ref, record, inputs);
          if (!(await save(recordOf(hop, record, state, reply), TTL_S))) return BUSY;
          return { reply, outcome: record ? 'event' : 'new' };
        },
        busy: () => BUSY,
      },
    );
  }

  return {
    handleHop: (hop) =>
      withLogContext(
        { requestId: `${hop.aggregator}-${hop.sessionId}-${hop.text.value.split('*').length}` },
        async () => {
          const started = Date.now();
          let answer: FloorAnswer;
          try {
            answer = await handle(hop);
          } catch (error) {
            log.error('hop failed', { error });
            answer = {
              reply: { text: 'Service unavailable. Please try again later.', end: true },
              outcome: 'failure',
            };
          }
          log.info(
            'hop',
            premasked({
              aggregator: hop.aggregator,
              msisdn: maskMsisdn(hop.msisdn),
              outcome: answer.outcome,
              durationMs: Date.now() - started,
              end: answer.reply.end,
            }),
          );
          return answer.reply;
        },
      ),
    endSession: async () => 'ignored',
    sessionActive: async (ref) => (await store.peek(ref))?.status === 'active',
  };
}
