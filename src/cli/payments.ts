import { paymentLifecycleSettings } from '../payments/lifecycle/settings';
import type { UnmatchedSuccess } from '../payments/store/notices';
import { SqlPaymentStore } from '../payments/store/sql';
import {
  DEFAULT_UNMATCHED_LIMIT,
  matchableForMs,
  MAX_UNMATCHED_LIMIT,
  UnmatchedPayments,
  UnmatchedQueryError,
  unmatchedQuery,
} from '../payments/unmatched';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { CareInputError } from '../purchases/care/care';
import { formatMoney } from '../vas/money';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- payments <command> [flags]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them; or /admin/payments/unmatched)
  unmatched                          success notices no payment of ours took: the provider says a
                                     buyer paid and nothing here will confirm or return it; newest
                                     first
    --limit N                        how many, 1 to ${MAX_UNMATCHED_LIMIT} (default ${DEFAULT_UNMATCHED_LIMIT})
    --older-than-ms MS               received more than MS ago (default: the longest one may still
                                     be matched, PAYMENT_PROVIDER's window + margin, + the re-checks
                                     of an unknown payment for M-Pesa)
  resolve-unmatched ID --note TEXT   close one once its money is dealt with (given back through
                                     the provider's own tool, or found to belong to something
                                     else): it leaves the list and the gauge (audited); refused
                                     while a payment of ours may still take it
flags: --reveal  show full numbers (written to the audit trail)   --json`;

/**
 * `npm run cli -- payments unmatched|resolve-unmatched`: money nobody holds, as
 * `/admin/payments/unmatched`.
 */
export async function paymentsCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, {
    ...valueFlags('limit', 'older-than-ms', 'note'),
    ...switches('json', 'reveal'),
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  if (
    !(command === 'unmatched' && id === undefined) &&
    !(command === 'resolve-unmatched' && id !== undefined && extra.length === 0)
  )
    return misused(io, USAGE);
  let query: { limit?: number; olderThanMs?: number } = {};
  if (command === 'unmatched')
    try {
      query = unmatchedQuery({ limit: values.limit, olderThanMs: values['older-than-ms'] });
    } catch (error) {
      if (!(error instanceof UnmatchedQueryError)) throw error;
      const flag = error.field === 'limit' ? '--limit' : '--older-than-ms';
      return misused(io, USAGE, `${flag} ${error.rule}`);
    }
  // A note that is blank or too long is the operator's to fix (exit 2); a refusal is exit 1.
  return runCommand(io, 'payments', argv, [CareInputError], async (scope) => {
    if (command === 'resolve-unmatched' && values.note === undefined)
      throw new UsageError('resolve-unmatched needs --note TEXT (what was done with the money)');
    const config = scope.config();
    const records = await scope.records(config, 'use /admin/payments/unmatched on the gateway');
    const audit = new SqlAuditTrail(records);
    // The gateway's own default: its provider's lifecycle settings.
    const view = new UnmatchedPayments(
      new SqlPaymentStore({ db: records }),
      matchableForMs(paymentLifecycleSettings(config.payments.provider)),
      audit,
    );
    const shown = scope.display(values.reveal, () => audit);
    if (command === 'resolve-unmatched') {
      const resolved = await view.resolve(id, values.note, scope.actor);
      if (values.json) io.stdout(JSON.stringify(await shown(resolved), null, 2));
      else io.stdout(`payment notice ${resolved.id} resolved by ${resolved.resolution.by}`);
      return EXIT.ok;
    }
    const found = await view.list(query);
    const notices = found.notices.length === 0 ? found.notices : await shown(found.notices);
    if (values.json) io.stdout(JSON.stringify({ ...found, notices }, null, 2));
    else {
      for (const n of notices) io.stdout(lineOf(n));
      io.stdout(
        `${found.total} unmatched paid notice(s) older than ${ageOf(found.olderThanMs)}` +
          (found.total > notices.length ? ` (${notices.length} shown)` : ''),
      );
    }
    return EXIT.ok;
  });
}

function lineOf(n: UnmatchedSuccess): string {
  return [
    n.receivedAt,
    `notice ${n.id}`,
    n.why === 'no_payment' ? 'no payment' : `${n.why}: payment ${n.paymentId} ${n.paymentState}`,
    n.provider,
    n.providerReference ?? '-',
    n.amount ? formatMoney(n.amount) : '-',
    `receipt ${n.receipt ?? '-'}`,
    `payer ${n.payerMsisdn ?? '-'}`,
  ].join('  ');
}

/** `86550000` → `24h 2m 30s`: the age as a person reads it. */
function ageOf(ms: number): string {
  const s = Math.floor(ms / 1000);
  const parts = [
    [Math.floor(s / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ].filter(([n]) => n !== 0);
  return parts.length === 0 ? `${ms} ms` : parts.map(([n, unit]) => `${n}${unit}`).join(' ');
}
