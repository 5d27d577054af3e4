import { maskMsisdn } from '../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../phone';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { forgetSubscriber } from '../subscribers/forget';
import { SqlSavedMeters } from '../subscribers/saved-meters';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- subscriber <command> --msisdn NUMBER [--json] [--reveal]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them)
  meters   the identifiers the number bought for, per product, newest first (its saved meters)
  forget   a data-deletion request: deletes its saved meters and masks in place its settled
           purchases (numbers, identifiers, tokens; amounts, states and references stay), the
           SMS sent to it and its cases' number; written to the audit trail. Purchases still
           open keep the number until they settle: run it again then`;

/** `npm run cli -- subscriber meters|forget --msisdn N`: what the records keep of one number. */
export async function subscriberCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, { ...valueFlags('msisdn'), ...switches('json', 'reveal') });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (!['meters', 'forget'].includes(command ?? '') || extra.length > 0) return misused(io, USAGE);
  if (values.msisdn === undefined) return misused(io, USAGE, `${command} needs --msisdn NUMBER`);
  return runCommand(io, 'subscriber', argv, [], async (scope) => {
    const config = scope.config();
    const n = normaliseMsisdn(values.msisdn!, config.defaultRegion as CountryCode);
    if (!n.ok) throw new UsageError(`not a mobile number: ${maskMsisdn(values.msisdn!)}`);
    const msisdn = n.e164;
    const records = await scope.records(config);
    const audit = new SqlAuditTrail(records);
    if (command === 'meters') {
      const saved = await new SqlSavedMeters(records).listAll(msisdn);
      const shown = await scope.display(values.reveal, () => audit)(saved);
      if (values.json) io.stdout(JSON.stringify(shown, null, 2));
      else if (shown.length === 0) io.stdout('no saved meters');
      else
        for (const m of shown)
          io.stdout([m.productType, m.identifier, m.name ?? '-', m.lastBoughtAt].join('  '));
      return EXIT.ok;
    }
    const report = await forgetSubscriber(records, msisdn);
    await audit.record({
      actor: scope.actor,
      action: 'forget',
      detail: `${maskMsisdn(msisdn)}: ${report.savedMeters} saved meters deleted, ${report.purchases} purchases, ${report.sms} sms and ${report.cases} cases masked, ${report.stillOpen} purchases still open`,
    });
    if (values.json) io.stdout(JSON.stringify(report, null, 2));
    else {
      io.stdout(
        `${maskMsisdn(msisdn)} forgotten: ${report.savedMeters} saved meters deleted; ` +
          `${report.purchases} purchases, ${report.sms} SMS and ${report.cases} cases masked (amounts kept)`,
      );
      if (report.stillOpen > 0)
        io.stdout(
          `${report.stillOpen} purchases are still open and keep the number: run forget again once they settle`,
        );
    }
    return EXIT.ok;
  });
}
