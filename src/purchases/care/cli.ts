import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config';
import { bullConnectionOptions, commandConnection } from '../../redis/connection';
import { formatMoney } from '../../vas/money';
import type { PurchaseService } from '../../vas/port';
import { PurchaseLifecycle, settingsFromConfig } from '../lifecycle';
import { BullJobQueue } from '../queue';
import { RedisPurchaseStore } from '../store';
import type { PurchaseRecord } from '../types';
import { RedisAuditTrail, type AuditEntry } from './audit';
import { CareInputError, CareNotFoundError, CareStateError, CustomerCare } from './care';
import { maskForDisplay } from './masking';

/** What the CLI prints through (`src/cli/main.ts`'s CliIo). */
export interface CareCliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

const USAGE = `usage: npm run cli -- purchases <command> [flags]   (needs REDIS_URL and REDIS_PREFIX as the gateway has them)
  find --msisdn NUMBER | --identifier METER | --reference REF   newest first (--limit N, default 50)
  show ID                        one purchase, as stored
  resolve ID --note TEXT         close a needs_attention purchase (what was found and done)
  reconcile ID [--note TEXT]     ask the purchase service again (retry only, never a second confirm);
                                 a running worker does it, and sends the token if it succeeded
  audit [ID]                     the audit trail, newest first (--limit N)
  reindex                        once after upgrading: index older records for find and retention
flags: --reveal  show full numbers and tokens (written to the audit trail)   --json`;

/** The CLI never calls the purchase service: an operator decision only writes and queues. */
const noService = new Proxy({} as PurchaseService, {
  get: () => () => Promise.reject(new Error('the purchases CLI does not call the purchase service')),
});

class UsageError extends Error {}

/** `npm run cli -- purchases …`: customer care from a shell, on the gateway's Redis. */
export async function purchasesCli(argv: string[], io: CareCliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        msisdn: { type: 'string' },
        identifier: { type: 'string' },
        reference: { type: 'string' },
        limit: { type: 'string' },
        note: { type: 'string' },
        reveal: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  const needsId = ['show', 'resolve', 'reconcile'].includes(command ?? '');
  if (
    !['find', 'show', 'resolve', 'reconcile', 'audit', 'reindex'].includes(command ?? '') ||
    (needsId && !id) ||
    (['find', 'reindex'].includes(command ?? '') && id) ||
    extra.length > 0
  ) {
    (command === 'help' ? io.stdout : io.stderr)(USAGE);
    return command === 'help' ? 0 : 2;
  }
  let config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (!config.redisUrl) {
    io.stderr(
      'error: the purchases live in Redis: set REDIS_URL and REDIS_PREFIX as the gateway has them ' +
        '(without Redis they are in the running gateway: use GET /admin/purchases)',
    );
    return 2;
  }
  const actor = `cli:${io.env.USER ?? io.env.LOGNAME ?? userInfo().username}`;
  const redis = commandConnection(config.redisUrl);
  const queue = new BullJobQueue({
    connection: bullConnectionOptions(config.redisUrl),
    prefix: `${config.redisPrefix}-bull`,
  });
  const store = new RedisPurchaseStore({
    redis,
    prefix: config.redisPrefix,
    retentionMs: config.care.retentionMs,
  });
  const care = new CustomerCare({
    store,
    lifecycle: new PurchaseLifecycle({
      store,
      queue,
      service: noService,
      settings: settingsFromConfig(config),
    }),
    audit: new RedisAuditTrail(redis, config.redisPrefix),
    region: config.defaultRegion,
  });
  /** Masked, or revealed after the reveal is written to the audit trail. */
  const shown = async <T>(value: T): Promise<T> => {
    if (!values.reveal) return maskForDisplay(value) as T;
    await care.recordReveal(actor, `cli purchases ${argv.filter((a) => a !== '--reveal').join(' ')}`);
    return value;
  };
  try {
    switch (command) {
      case 'find': {
        const found = await care.find({
          msisdn: values.msisdn,
          identifier: values.identifier,
          reference: values.reference,
          limit: values.limit,
        });
        const purchases = await shown(found.purchases);
        if (values.json) io.stdout(JSON.stringify(purchases, null, 2));
        else if (purchases.length === 0) io.stdout(`no purchases for that ${found.by}`);
        else for (const p of purchases) io.stdout(summary(p));
        return 0;
      }
      case 'show': {
        io.stdout(JSON.stringify(await shown(await care.get(id)), null, 2));
        return 0;
      }
      case 'resolve': {
        if (values.note === undefined)
          throw new UsageError('resolve needs --note TEXT (what was found and done)');
        const purchase = await care.resolve(id, values.note, actor);
        io.stdout(`${purchase.id} resolved by ${actor}`);
        return 0;
      }
      case 'reconcile': {
        const purchase = await care.reconcile(id, values.note, actor);
        io.stdout(`${purchase.id} ${purchase.state}: a worker asks the purchase service now`);
        return 0;
      }
      case 'reindex': {
        io.stdout(`${await store.reindex()} purchase records indexed`);
        return 0;
      }
      case 'audit': {
        const entries = await care.trail({ purchaseId: id, limit: values.limit });
        if (values.json) io.stdout(JSON.stringify(entries, null, 2));
        else if (entries.length === 0) io.stdout('no audit entries');
        else for (const e of entries) io.stdout(auditLine(e));
        return 0;
      }
    }
    return 2;
  } catch (error) {
    if (error instanceof UsageError || error instanceof CareInputError) {
      io.stderr(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof CareNotFoundError || error instanceof CareStateError) {
      io.stderr(`error: ${error.message}`);
      return 1;
    }
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await queue.close().catch(() => undefined);
    redis.disconnect();
  }
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
