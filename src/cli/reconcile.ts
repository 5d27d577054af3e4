import { readFile } from 'node:fs/promises';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { CareInputError } from '../purchases/care/care';
import { reconciliationFor } from '../gateway/reconciliation';
import { mismatchesCsv } from '../reconciliation/csv';
import { MismatchNotFoundError, MismatchStateError, type Mismatch } from '../reconciliation/queue';
import { checkDay, ReconcileInputError, type DayReconciliation } from '../reconciliation/reconcile';
import { StatementFormatError } from '../reconciliation/statements/types';
import { formatMoney } from '../vas/money';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';
import { openSession } from './service-session';

const USAGE = `usage: npm run cli -- reconcile <command> [flags]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them; or /admin/reconciliation)
  import FILE                  a provider's statement: M-Pesa's organisation portal export (CSV),
                               MTN MoMo's statement export (CSV) or a Daraja pull answer (JSON);
                               the same file again changes nothing; another format is refused
  pull --date D                M-Pesa's transactions of day D by Daraja's Pull Transactions API
                               (RECONCILIATION_PULL)
  balance                      read the debit account's balance now and record it (the wallet side)
  topup --account ID --amount "BWP 5000.00" --note TEXT [--at ISO]
                               money put into the wallet outside the gateway (negative: taken out)
  day --date D [--csv|--json]  reconcile the local day D (TZ): counts and totals per ledger,
                               matched, mismatches by reason; exit 1 while anything is open
  mismatches [--state open|closed] [--reason R] [--date D] [--limit N]   the queue
  show ID | assign ID --to NAME | note ID --note TEXT
  close ID --decision vended|refunded|written_off|settled_late|not_a_mismatch|other --note TEXT
                               (audited; closing moves no money: vend or refund through
                               purchases reconcile and the payment's refund path first)
flags: --json   --reveal  show full numbers (written to the audit trail)`;

const USAGE_ERRORS = [CareInputError, ReconcileInputError, StatementFormatError, MismatchNotFoundError];

/** `npm run cli -- reconcile …`: the three-way reconciliation, as `/admin/reconciliation`. */
export async function reconcileCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, {
    ...valueFlags('date', 'state', 'reason', 'limit', 'to', 'note', 'decision', 'account', 'amount', 'at'),
    ...switches('json', 'csv', 'reveal'),
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, arg, ...extra] = positionals;
  const withId = ['show', 'assign', 'note', 'close', 'import'];
  const bare = ['pull', 'balance', 'topup', 'day', 'mismatches'];
  if (
    !(withId.includes(command) && arg !== undefined && extra.length === 0) &&
    !(bare.includes(command) && arg === undefined)
  )
    return misused(io, USAGE);
  if (values.csv && values.json) return misused(io, USAGE, 'one of --csv or --json');
  return runCommand(io, 'reconcile', argv, USAGE_ERRORS, async (scope) => {
    const config = scope.config();
    const records = await scope.records(config, 'use /admin/reconciliation on the gateway');
    const audit = new SqlAuditTrail(records);
    const session = command === 'balance' || command === 'pull' ? await openSession(io) : undefined;
    if (session) scope.onClose(() => session.close());
    const sandboxPort = config.payments.sandboxPort || 4020;
    const reconciliation = reconciliationFor(config, {
      db: records,
      audit,
      service: session?.service,
      paymentSandboxUrl: config.payments.embedded ? `http://127.0.0.1:${sandboxPort}` : undefined,
    });
    const shown = scope.display(values.reveal, () => audit);
    const print = async (value: unknown, line: string) =>
      io.stdout(values.json ? JSON.stringify(await shown(value), null, 2) : line);
    const need = (flag: string) => {
      const v = values[flag as keyof typeof values];
      if (typeof v !== 'string') throw new UsageError(`${command} needs --${flag}`);
      return v;
    };
    switch (command) {
      case 'import': {
        const content = await readFile(arg);
        const r = await reconciliation.importStatement(content, scope.actor, arg);
        await print(
          r,
          r.duplicate
            ? `${arg}: imported before (${r.format}); nothing changed`
            : `${arg}: ${r.format}, ${r.lines} lines, ${r.added} new, ${r.skipped} without money moved`,
        );
        return EXIT.ok;
      }
      case 'pull': {
        const r = await reconciliation.pull(checkDay(need('date')), scope.actor);
        if (!r)
          throw new UsageError("no pull: Daraja's Pull Transactions API is not set up (RECONCILIATION_PULL)");
        await print(r, r.duplicate ? 'pulled: nothing new' : `pulled ${r.lines} lines, ${r.added} new`);
        return EXIT.ok;
      }
      case 'balance': {
        const b = await reconciliation.recordBalance(scope.actor);
        await print(b, `account ${b.accountId}: ${formatMoney(b.balance)} at ${b.at}`);
        return EXIT.ok;
      }
      case 'topup': {
        const t = await reconciliation.declareTopUp(
          { accountId: need('account'), amount: need('amount'), note: need('note'), at: values.at },
          scope.actor,
        );
        await print(t, `top-up ${t.id}: ${formatMoney(t.amount)} on account ${t.accountId} at ${t.at}`);
        return EXIT.ok;
      }
      case 'day': {
        const day = await reconciliation.day(checkDay(need('date')));
        if (values.csv) {
          const rows = [
            ...(await reconciliation.queue.list({ state: 'open', day: day.day, limit: 500 })),
            ...(await reconciliation.queue.list({ state: 'closed', day: day.day, limit: 500 })),
          ];
          io.stdout(mismatchesCsv(await shown(rows)).replace(/\r\n$/, ''));
        } else if (values.json) io.stdout(JSON.stringify(day, null, 2));
        else describeDay(day).forEach((line) => io.stdout(line));
        return day.status === 'closed' ? EXIT.ok : EXIT.failed;
      }
      case 'mismatches': {
        const list = await reconciliation.queue.list({
          state: values.state,
          reason: values.reason,
          day: values.date,
          limit: values.limit,
        });
        const visible = await shown(list);
        if (values.json) io.stdout(JSON.stringify(visible, null, 2));
        else {
          visible.forEach((m) => io.stdout(lineOf(m)));
          io.stdout(`${visible.length} ${values.state ?? 'open'} mismatch(es)`);
        }
        return EXIT.ok;
      }
      case 'show': {
        const m = await reconciliation.queue.get(arg);
        io.stdout(JSON.stringify(await shown(m), null, 2));
        return EXIT.ok;
      }
      case 'assign': {
        const m = await reconciliation.queue.assign(arg, need('to'), scope.actor);
        await print(m, `mismatch ${m.id} assigned to ${m.assignee}`);
        return EXIT.ok;
      }
      case 'note': {
        const m = await reconciliation.queue.note(arg, need('note'), scope.actor);
        await print(m, `mismatch ${m.id} noted`);
        return EXIT.ok;
      }
      default: {
        const m = await reconciliation.queue
          .close(arg, need('decision'), need('note'), scope.actor)
          .catch((error: unknown) => {
            if (error instanceof MismatchStateError) throw new Error(error.message);
            throw error;
          });
        await print(m, `mismatch ${m.id} closed: ${m.decision}`);
        return EXIT.ok;
      }
    }
  });
}

function lineOf(m: Mismatch): string {
  return [
    `#${m.id}`,
    m.day,
    m.reason,
    m.amount,
    m.suggestedAction,
    m.assignee ? `assigned ${m.assignee}` : 'unassigned',
    (m.facts as { summary?: string }).summary ?? '',
  ].join('  ');
}

const totalsOf = (t: { count: number; total: { currency: string; minor: number }[] }) =>
  `${t.count}${t.total.length ? ` (${t.total.map((m) => formatMoney(m)).join(', ')})` : ''}`;

/** The day as lines for a terminal (the JSON carries the same figures). */
export function describeDay(d: DayReconciliation): string[] {
  const lines = [`reconciliation ${d.day} (${d.from} → ${d.to}): ${d.status.toUpperCase()}`];
  lines.push(
    `statement (${d.statement.providers.join(', ') || 'none'}): ${d.statement.lines} lines; payments ${totalsOf(d.statement.payments)}; refunds ${totalsOf(d.statement.refunds)}; other ${d.statement.other}`,
  );
  lines.push(`ours: payments ${totalsOf(d.ours.payments)}; refunds ${totalsOf(d.ours.refunds)}`);
  if (d.wallet)
    lines.push(
      `wallet ${d.wallet.accountId}: opening ${d.wallet.opening ?? '?'}, closing ${d.wallet.closing ?? '?'}, ` +
        `sales ${d.wallet.sales} (${d.wallet.salesCount}), top-ups ${d.wallet.topups}, drift ${d.wallet.drift ?? '?'}`,
    );
  lines.push(`matched ${d.matched} (${d.matchedLate} settled on another day)`);
  const open = Object.entries(d.open);
  lines.push(`open: ${open.length ? open.map(([r, n]) => `${r} ${n}`).join(', ') : 'none'}`);
  if (d.missing.length) lines.push(`missing: ${d.missing.join('; ')}`);
  return lines;
}
