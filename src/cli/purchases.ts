import { createAgents } from '../agents';
import { CareInputError, CustomerCare } from '../purchases/care/care';
import type { AuditEntry } from '../purchases/care/audit';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { PurchaseLifecycle } from '../purchases/lifecycle/runner';
import { settingsFromConfig } from '../purchases/settings';
import { BullJobQueue, type JobQueue } from '../queue';
import { SqlPurchaseStore } from '../purchases/store/sql';
import type { PurchaseRecord } from '../purchases/types';
import { bullConnectionOptions } from '../redis/connection';
import { AgentSide } from '../sales/agent-side';
import { formatMoney } from '../vas/money';
import type { PurchaseService } from '../vas/port';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- purchases <command> [flags]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them; reconcile also REDIS_URL and REDIS_PREFIX)
  find --msisdn NUMBER | --identifier METER | --reference REF   newest first (--limit N, default 50)
  show ID                        one purchase, as stored
  resolve ID --note TEXT [--outcome sold|not_sold]
                                 close a needs_attention purchase (what was found and done);
                                 an agent's sale needs --outcome: its float hold is spent or given back
  reconcile ID [--note TEXT]     ask the purchase service again (retry only, never a second confirm);
                                 a running worker does it, and sends the token if it succeeded
  audit [ID]                     the audit trail, newest first (--limit N)
flags: --reveal  show full numbers and tokens (written to the audit trail)   --json`;

/** The CLI never calls the purchase service: an operator decision only writes and queues. */
const noService = new Proxy({} as PurchaseService, {
  get: () => () => Promise.reject(new Error('the purchases CLI does not call the purchase service')),
});

/**
 * The queue of the gateway's workers, for `reconcile` only (it hands the purchase to them); the
 * other commands enqueue nothing (a resolved purchase has no follow-up) and need no Redis.
 */
const noQueue: JobQueue = {
  enqueue: () => Promise.reject(new Error('this purchases command queues no job')),
  start: () => Promise.reject(new Error('the purchases CLI runs no worker')),
  close: async () => undefined,
};

/** `npm run cli -- purchases …`: customer care from a shell, on the gateway's records. */
export async function purchasesCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, {
    ...valueFlags('msisdn', 'identifier', 'reference', 'limit', 'note', 'outcome'),
    ...switches('reveal', 'json'),
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  const needsId = ['show', 'resolve', 'reconcile'].includes(command ?? '');
  if (
    !['find', 'show', 'resolve', 'reconcile', 'audit'].includes(command ?? '') ||
    (needsId && !id) ||
    (command === 'find' && id) ||
    extra.length > 0
  )
    return misused(io, USAGE);
  // A CareInputError (not found, or not in a state to resolve or reconcile) is the operator's to fix.
  return runCommand(io, 'purchases', argv, [CareInputError], async (scope) => {
    const config = scope.config();
    // Only reconcile needs the gateway's Redis: its workers take the purchase from their queue.
    const redisUrl =
      command === 'reconcile'
        ? await scope.redis(
            config,
            "reconcile hands the purchase to the gateway's workers over Redis: set REDIS_URL and " +
              'REDIS_PREFIX as the gateway has them (or use POST /admin/purchases/<id>/reconcile)',
          )
        : undefined;
    const records = await scope.records(config, 'use GET /admin/purchases on the gateway');
    const queue: JobQueue = redisUrl
      ? new BullJobQueue({
          connection: bullConnectionOptions(redisUrl),
          prefix: `${config.redisPrefix}-bull`,
        })
      : noQueue;
    scope.onClose(() => queue.close().catch(() => undefined));
    const actor = scope.actor;
    const store = new SqlPurchaseStore({ db: records, retentionMs: config.care.retentionMs });
    const audit = new SqlAuditTrail(records);
    const care = new CustomerCare({
      store,
      lifecycle: new PurchaseLifecycle({
        store,
        queue,
        service: noService,
        // A resolved agent's sale spends or gives back its float hold, as the gateway's would (the
        // agents' side is built only for one: no other command needs the agents' settings).
        settlement: {
          settled: async (record) => {
            if (record.intent.agent)
              await new AgentSide(createAgents(records, config), config.timeZone).settled(record);
          },
        },
        settings: settingsFromConfig(config),
      }),
      audit,
      region: config.defaultRegion,
    });
    /** Masked, or revealed after the reveal is written to the audit trail (under each purchase shown). */
    const shown = scope.display(values.reveal, () => audit);
    switch (command) {
      case 'find': {
        const found = await care.find({
          msisdn: values.msisdn,
          identifier: values.identifier,
          reference: values.reference,
          limit: values.limit,
        });
        const purchases = await shown(
          found.purchases,
          found.purchases.map((p) => p.id),
        );
        if (values.json) io.stdout(JSON.stringify(purchases, null, 2));
        else if (purchases.length === 0) io.stdout(`no purchases for that ${found.by}`);
        else for (const p of purchases) io.stdout(summary(p));
        return EXIT.ok;
      }
      case 'show': {
        const purchase = await care.get(id);
        io.stdout(JSON.stringify(await shown(purchase, [purchase.id]), null, 2));
        return EXIT.ok;
      }
      case 'resolve': {
        if (values.note === undefined)
          throw new UsageError('resolve needs --note TEXT (what was found and done)');
        const purchase = await care.resolve(id, values.note, actor, values.outcome);
        const outcome = purchase.resolution?.outcome;
        io.stdout(`${purchase.id} resolved by ${actor}${outcome ? ` (${outcome})` : ''}`);
        return EXIT.ok;
      }
      case 'reconcile': {
        const purchase = await care.reconcile(id, values.note, actor);
        io.stdout(`${purchase.id} ${purchase.state}: a worker asks the purchase service now`);
        return EXIT.ok;
      }
      case 'audit': {
        const entries = await care.trail({ purchaseId: id, limit: values.limit });
        if (values.json) io.stdout(JSON.stringify(entries, null, 2));
        else if (entries.length === 0) io.stdout('no audit entries');
        else for (const e of entries) io.stdout(auditLine(e));
        return EXIT.ok;
      }
    }
    return EXIT.usage;
  });
}

/** One line per purchase: id, state, when, what, for whom, references. */
function summary(p: PurchaseRecord): string {
  return [
    p.id,
    p.state,
    p.createdAt,
    p.intent.productType,
    p.intent.subscriberIdentifier,
    formatMoney(p.intent.amount),
    p.intent.beneficiaryMsisdn,
    p.externalReference,
    p.result?.reference ?? '-',
  ].join('  ');
}

function auditLine(e: AuditEntry): string {
  return [e.at, e.actor, e.action, e.purchaseId ?? '-', e.note ?? e.detail ?? ''].join('  ');
}
