/**
 * The SMS the CLI's direct mode owes an agent: a DEPOSIT approved or rejected from here is told
 * exactly as `/admin` tells it (`depositTeller`: the same text, the same id, once per deposit
 * and decision). The CLI sends nothing itself: the message is written to the gateway's message
 * store (the system of record) and, with Redis, queued for the gateway's SMS workers; without
 * Redis, the gateway's sweep sends it (it re-queues every open message without a live job).
 */
import type { AgentDeskOptions } from '../agents/admin/desk';
import type { Agents } from '../agents';
import { messageId } from '../messaging/message';
import { BullmqSmsQueue } from '../messaging/queue/bullmq';
import { SqlMessageStore } from '../messaging/store/sql';
import type { Config } from '../config';
import { depositTeller } from '../agents/deposit-teller';
import { registrationTeller } from '../agents/registration-teller';
import { loadLocales } from '../i18n';
import type { Database } from '../records/database';
import { bullConnectionOptions, bullPrefix } from '../redis/connection';
import type { CommandScope } from './kit';

/** The desk's deposit and registration hooks for the direct mode: each decision's SMS queued durably for the gateway. */
export function directTellers(
  scope: CommandScope,
  config: Config,
  records: Database,
  agents: Agents,
): Required<Pick<AgentDeskOptions, 'onDepositDecided' | 'onRegistrationDecided'>> {
  const store = new SqlMessageStore(records);
  let queue: BullmqSmsQueue | undefined;
  const send = async ({ id, to, message }: { id: string; to: string; message: string }) => {
    const sms = {
      id: messageId(id, to),
      kind: 'sms-reply' as const,
      to,
      message,
      ...(config.sms.senderId !== undefined && { from: config.sms.senderId }),
    };
    if (!config.redisUrl) {
      await store.create(sms, new Date());
      return;
    }
    if (!queue) {
      // A queue without a worker: the gateway's SMS workers send it.
      queue = new BullmqSmsQueue({
        connection: bullConnectionOptions(config.redisUrl, { cluster: config.redisCluster }),
        prefix: bullPrefix(config.redisPrefix, config.redisCluster),
        store,
      });
      const opened = queue;
      scope.onClose(() => opened.close());
    }
    await queue.enqueue(sms);
  };
  const locales = loadLocales();
  return {
    onDepositDecided: depositTeller({ registry: agents.registry, float: agents.float, locales, send }),
    onRegistrationDecided: registrationTeller({ registry: agents.registry, locales, send }),
  };
}
