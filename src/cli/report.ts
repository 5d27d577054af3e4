import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { dailyReport, ReportInputError, type DailyReport } from '../reports/daily';
import { reportCsv } from '../reports/csv';
import { formatMoney, type Money } from '../vas/money';
import { EXIT, misused, parseFlags, runCommand, switches, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- report daily --date YYYY-MM-DD [--csv | --json] [--reveal]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them; or GET /admin/reports/daily?date=)
  one local day (TZ): sales by product, provider and channel; each agent's sales and float;
  purchases still open at the day's end. Agents' numbers are masked unless --reveal (audited).`;

/** `npm run cli -- report daily`: the day's figures from the system of record (src/reports/daily.ts). */
export async function reportCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, { ...valueFlags('date'), ...switches('csv', 'json', 'reveal') });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const date = values.date;
  if (positionals.length !== 1 || positionals[0] !== 'daily' || date === undefined)
    return misused(
      io,
      USAGE,
      positionals[0] === 'daily' && date === undefined ? '--date is required' : undefined,
    );
  if (values.csv && values.json) return misused(io, USAGE, 'one of --csv or --json');
  return runCommand(io, 'report', argv, [ReportInputError], async (scope) => {
    const config = scope.config();
    const records = await scope.records(config, 'use GET /admin/reports/daily?date= on the gateway');
    const shown = scope.display(values.reveal, () => new SqlAuditTrail(records));
    const report = await dailyReport(records, {
      date,
      timeZone: config.timeZone,
      floatCurrency: config.agents.currency,
    });
    const visible = await shown(report);
    if (values.csv) io.stdout(reportCsv(visible).replace(/\r\n$/, ''));
    else if (values.json) io.stdout(JSON.stringify(visible, null, 2));
    else describeReport(visible).forEach((line) => io.stdout(line));
    return EXIT.ok;
  });
}

/** The report as lines for a terminal (the CSV and the JSON carry the same figures). */
export function describeReport(report: DailyReport): string[] {
  const m = (money: Money) => formatMoney(money);
  const lines = [`daily report ${report.date} (${report.timeZone}: ${report.from} → ${report.to})`];
  lines.push('sales (succeeded):');
  if (report.sales.length === 0) lines.push('  none');
  for (const s of report.sales)
    lines.push(
      `  ${s.productType} ${s.providerCode} ${s.channel}: ${s.count} sold, amount ${m(s.amount)}, ` +
        `charges ${m(s.charges)}, total ${m(s.total)}` +
        (s.totalsUnknown > 0 ? ` (${s.totalsUnknown} without a reported total)` : ''),
    );
  lines.push('agents:');
  if (report.agents.length === 0) lines.push('  none');
  for (const a of report.agents) {
    const float = a.closing
      ? `; commission ${m(a.commission)}; float in ${m(a.floatIn)}, out ${m(a.floatOut)} ` +
        `(transfers in ${m(a.transfersIn)}, out ${m(a.transfersOut)}), ` +
        `opening ${a.opening ? `${m(a.opening.balance)} (held ${m(a.opening.held)})` : 'none'}, ` +
        `closing ${m(a.closing.balance)} (held ${m(a.closing.held)})`
      : '';
    lines.push(`  ${a.msisdn} ${a.name ?? '(removed)'}: ${a.sales.count} sales, ${m(a.sales.value)}${float}`);
  }
  lines.push("open at the day's end:");
  if (report.open.length === 0) lines.push('  none');
  for (const o of report.open) lines.push(`  ${o.state}: ${o.count}, ${m(o.amount)}`);
  return lines;
}
