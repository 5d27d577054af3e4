import type { Router } from 'express';
import { inboundSmsAdapters } from '../sms/inbound/adapters';
import { SmsIntake } from '../sms/inbound/intake';
import { PinGate } from '../sms/agents/pin-gate';
import { Keywords } from '../sms/commands/keywords';
import { inboundSmsQueue } from '../sms/inbound/queue';
import { inboundSmsRouter } from '../sms/inbound/router';
import { SmsConversation } from '../sms/mo/conversation';
import { MemorySmsMoStore, RedisSmsMoStore, type SmsMoStore } from '../sms/mo/store';
import type { Config } from '../config';
import { componentLogger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { messageId } from '../messaging/message';
import type { SessionStore } from '../ussd/engine/store';
import type { Catalogue } from '../vas';
import { debitAccountLookup } from '../sales/debit-account';
import { AgentSummarySchedule } from '../agents/summary-schedule';
import type { MoneyPath } from './money-path';

const log = componentLogger('sms-channel');

/** The SMS-MO channel as a process runs it: its routes, and `close()`. */
export interface SmsChannel {
  router: Router;
  conversation: SmsConversation;
  close(): Promise<void>;
}

/**
 * Build the SMS-MO channel on top of the money path: the conversation's store (Redis or memory,
 * like the rest), the inbound queue (BullMQ or in-process), the intake and the routes. With
 * `runWorkers` (always without Redis) this process also answers the queued messages.
 */
export async function startSmsChannel(
  config: Config,
  moneyPath: MoneyPath,
  catalogue: Catalogue,
  sessions: SessionStore,
  runWorkers: boolean,
  metrics?: Metrics,
): Promise<SmsChannel> {
  const { redis, desk, service, locales } = moneyPath;
  const store: SmsMoStore = redis ? new RedisSmsMoStore(redis, config.redisPrefix) : new MemorySmsMoStore();
  const queue = inboundSmsQueue(moneyPath.bull);
  // Agents' PINs are removed here, before anything is de-duplicated, queued or stored.
  const pins = new PinGate(
    moneyPath.agents.registry,
    moneyPath.agents.pins,
    new Keywords(locales),
    config.defaultRegion,
    store,
  );
  const intake = new SmsIntake(store, queue, pins);
  // Each reply is its own message (`id` names the inbound SMS or the summary): durable, retried,
  // and never sent twice for one id.
  const sendReply = async ({ id, to, message }: { id: string; to: string; message: string }) => {
    await moneyPath.sms.enqueue({
      id: messageId(id, 'reply', to),
      kind: 'sms-reply',
      to,
      message,
      ...(config.sms.senderId !== undefined && { from: config.sms.senderId }),
    });
  };
  const conversation = new SmsConversation(
    store,
    {
      products: (ctx) => catalogue.products(ctx),
      debitAccount: debitAccountLookup(service, config.debitAccountId),
      quote: (request, ctx) => service.validate(request, ctx),
      checkSpend: (intent) => moneyPath.spend.check(intent),
      savedMeters: moneyPath.subscribers.savedMeters,
      desk,
      agents: moneyPath.agentSide,
      payments: moneyPath.payments ?? undefined,
      ...(moneyPath.agentTopUps && { agentTopUp: moneyPath.agentTopUps.request }),
      language: {
        get: (msisdn) => sessions.getLanguage(msisdn),
        set: (msisdn, tag) => sessions.setLanguage(msisdn, tag),
      },
      reply: sendReply,
    },
    locales,
    {
      quoteTtlS: config.smsMo.quoteTtlS,
      ratePerMin: config.smsMo.ratePerMin,
      repliesPerMin: config.smsMo.repliesPerMin,
      defaultLanguage: locales.meta(config.defaultLanguage).tag,
      defaultRegion: config.defaultRegion,
      timeZone: config.timeZone,
      yesWithoutCode: config.smsMo.yesWithoutCode,
    },
  );
  if (runWorkers || !redis)
    await queue.start(async (job) => {
      const { key, sms } = job;
      const outcome = await conversation.handle(sms, key);
      await intake.answered(job);
      metrics?.smsInbound.inc({ provider: sms.provider, outcome });
      log.info('inbound sms handled', { smsKey: key, provider: sms.provider, outcome });
    });

  // An SMPP link bound as transceiver delivers MO messages and receipts here: the same path.
  moneyPath.inbound.connect({
    message: (sms) =>
      void intake
        .accept(sms)
        .catch((error: unknown) => log.error('smpp inbound sms could not be queued', { error })),
    delivery: (report) =>
      void moneyPath.deliveries
        .record(report)
        .catch((error: unknown) => log.error('smpp delivery receipt could not be recorded', { error })),
  });
  // The day's summary SMS to each agent with activity (AGENT_SUMMARY_TIME), where workers run.
  const summaryTime = config.agents.summaryTime;
  const summaries =
    summaryTime && (runWorkers || !redis)
      ? new AgentSummarySchedule({
          db: moneyPath.records,
          registry: moneyPath.agents.registry,
          float: moneyPath.agents.float,
          time: summaryTime,
          timeZone: config.timeZone,
          compose: async (agent, day) => (await conversation.summaryText(agent, day)) ?? '',
          send: sendReply,
        })
      : null;
  summaries?.start();
  const router = inboundSmsRouter({
    adapters: inboundSmsAdapters,
    intake,
    deliveries: { record: (report) => moneyPath.deliveries.record(report) },
    secret: config.smsMo.callbackSecret,
    allowedIps: config.smsMo.allowedIps,
  });
  return {
    router,
    conversation,
    async close() {
      await summaries?.stop();
      await queue.close();
      await store.close();
    },
  };
}
