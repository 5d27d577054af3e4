import { loadLocales } from '../i18n';
import { maskMsisdn } from '../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../phone';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { CareInputError } from '../purchases/care/care';
import { CaseDesk, type CareCase } from '../purchases/care/cases';
import { SqlPurchaseStore } from '../purchases/store/sql';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- cases <command> [flags]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them; or use /admin/cases)
  list [--state open|closed] [--msisdn NUMBER] [--limit N]   open cases oldest first (the care
                             queue, with the count of needs_attention purchases beside it)
  show ID                    one case
  close ID --note TEXT       close it with what was found and done (audited)
flags: --reveal  show full numbers (written to the audit trail)   --json`;

/** The CLI opens no case (that sends an SMS: POST /admin/cases does) and resends nothing. */
const noSms = { enqueue: () => Promise.reject(new Error('the cases CLI sends no SMS')) };

/** `npm run cli -- cases list|show|close`: complaint cases, from a shell. */
export async function casesCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, {
    ...valueFlags('state', 'msisdn', 'limit', 'note'),
    ...switches('reveal', 'json'),
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  const needsId = command === 'show' || command === 'close';
  if (
    !['list', 'show', 'close'].includes(command ?? '') ||
    needsId !== (id !== undefined) ||
    extra.length > 0
  )
    return misused(io, USAGE);
  return runCommand(io, 'cases', argv, [CareInputError], async (scope) => {
    const config = scope.config();
    const records = await scope.records(config, 'use /admin/cases on the gateway');
    const audit = new SqlAuditTrail(records);
    const store = new SqlPurchaseStore({ db: records, retentionMs: config.care.retentionMs });
    const cases = new CaseDesk({
      db: records,
      purchases: {
        get: (purchaseId) => store.get(purchaseId),
        resendSms: () => Promise.reject(new Error('the cases CLI resends no SMS')),
      },
      sms: noSms,
      locales: loadLocales(),
      audit,
    });
    const shown = scope.display(values.reveal, () => audit);
    if (command === 'list') {
      let msisdn: string | undefined;
      if (values.msisdn !== undefined) {
        const n = normaliseMsisdn(values.msisdn, config.defaultRegion as CountryCode);
        if (!n.ok) throw new UsageError(`not a mobile number: ${maskMsisdn(values.msisdn)}`);
        msisdn = n.e164;
      }
      const list = await shown(await cases.list({ state: values.state, msisdn, limit: values.limit }));
      const needsAttention = (await store.countByState()).needs_attention;
      if (values.json) io.stdout(JSON.stringify({ cases: list, needsAttention }, null, 2));
      else {
        if (list.length === 0) io.stdout(`no ${values.state ?? 'open'} cases`);
        for (const c of list) io.stdout(caseLine(c));
        if ((values.state ?? 'open') === 'open')
          io.stdout(`needs_attention purchases: ${needsAttention} (npm run cli -- purchases …)`);
      }
      return EXIT.ok;
    }
    if (command === 'show') {
      const found = await cases.get(id);
      io.stdout(JSON.stringify(await shown(found, found.purchaseId ? [found.purchaseId] : []), null, 2));
      return EXIT.ok;
    }
    if (values.note === undefined) throw new UsageError('close needs --note TEXT (what was found and done)');
    const closed = await cases.close(id, values.note, scope.actor);
    io.stdout(`case ${closed.id} closed by ${closed.closedBy}`);
    return EXIT.ok;
  });
}

function caseLine(c: CareCase): string {
  return [
    c.id,
    c.state,
    c.createdAt,
    c.reason,
    c.msisdn,
    c.purchaseId ?? '-',
    c.notes?.split('\n')[0] ?? '',
  ].join('  ');
}
