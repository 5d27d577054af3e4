import { startMoneyPath } from '../gateway/money-path';
import { maskForDisplay } from '../purchases/care/masking';
import {
  DEFAULT_UNDELIVERED_LIMIT,
  MAX_UNDELIVERED_LIMIT,
  UndeliveredSms,
  type ResendReport,
} from '../purchases/notify/undelivered';
import type { MessageRecord } from '../messaging/message';
import { sandboxUrl } from '../sandbox/settings';
import { EXIT, misused, parseFlags, runCommand, switches, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- sms <command> [--limit N] [--json]   (needs REDIS_URL and REDIS_PREFIX as the gateway has them)
  undelivered          SMS the subscriber did not get (the provider refused it, or every retry failed)
                       and nobody resent, oldest first (numbers and tokens masked)
  resend-undelivered   once the provider is fixed: resend them, oldest first, each to its own
                       recipient only and once (a running worker sends them)
  --limit N            how many, 1 to ${MAX_UNDELIVERED_LIMIT} (default ${DEFAULT_UNDELIVERED_LIMIT})`;

/** `npm run cli -- sms …`: the undelivered SMS view and its bulk resend, as `/admin/sms/undelivered`. */
export async function smsCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, { ...valueFlags('limit'), ...switches('json') });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (positionals.length !== 1 || !['undelivered', 'resend-undelivered'].includes(command ?? ''))
    return misused(io, USAGE);
  const limit = values.limit === undefined ? DEFAULT_UNDELIVERED_LIMIT : Number(values.limit);
  if (!/^\d+$/.test(values.limit ?? '1') || limit < 1 || limit > MAX_UNDELIVERED_LIMIT)
    return misused(io, USAGE, `--limit must be a whole number from 1 to ${MAX_UNDELIVERED_LIMIT}`);
  return runCommand(io, 'sms', argv, [], async (scope) => {
    const config = scope.config();
    // Before the money path's clients, which reconnect for ever.
    await scope.redis(
      config,
      'the SMS live in Redis: set REDIS_URL and REDIS_PREFIX as the gateway has them ' +
        '(without Redis they are in the running gateway: use GET /admin/sms/undelivered)',
    );
    // The resend composes from the stored purchase and only queues: the service is never called.
    const moneyPath = await startMoneyPath(config, {
      purchaseServiceUrl:
        config.purchaseApi.baseUrl ?? (config.sandbox && sandboxUrl(config.sandbox)) ?? 'http://127.0.0.1',
      runWorkers: false,
    });
    scope.onClose(() => moneyPath.close());
    const undelivered = new UndeliveredSms(moneyPath.sms.store, moneyPath.desk.resendSms);
    if (command === 'undelivered') {
      const { total, sms } = await undelivered.list(limit);
      const shown = maskForDisplay(sms) as MessageRecord[];
      if (values.json) io.stdout(JSON.stringify({ total, sms: shown }, null, 2));
      else {
        for (const n of shown)
          io.stdout([n.createdAt, n.status, n.purchaseId ?? n.kind, n.to, n.lastError ?? '-'].join('  '));
        io.stdout(`${total} undelivered SMS${total > sms.length ? ` (${sms.length} shown)` : ''}`);
      }
      return EXIT.ok;
    }
    const report = maskForDisplay(await undelivered.resend(limit)) as ResendReport;
    const { total } = await undelivered.list(0);
    if (values.json) io.stdout(JSON.stringify({ ...report, remaining: total }, null, 2));
    else {
      for (const s of report.skipped) io.stdout(`skipped ${s.purchaseId ?? s.smsId}: ${s.reason}`);
      for (const f of report.failed) io.stdout(`not resent ${f.purchaseId}: ${f.error}`);
      io.stdout(
        `${report.resent.length} resent, ${report.skipped.length} skipped, ${report.failed.length} failed; ` +
          `${total} left undelivered`,
      );
    }
    return report.failed.length > 0 ? EXIT.failed : EXIT.ok;
  });
}
