import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { ledgerCheck } from '../reports/ledger-check';
import { EXIT, misused, parseFlags, runCommand, switches, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- ledger check [--json] [--reveal]   (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them)
  every float's balance is the sum of its entries, and every succeeded purchase had one confirm
  that may have charged it; exit 0 when it adds up, 1 with the list of what does not
  (agents' numbers masked unless --reveal, written to the audit trail)`;

/** `npm run cli -- ledger check`: the ledger check of the system of record (src/reports/ledger-check.ts). */
export async function ledgerCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, switches('json', 'reveal'));
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'check') return misused(io, USAGE);
  return runCommand(io, 'ledger', argv, [], async (scope) => {
    const records = await scope.records(scope.config());
    const problems = await ledgerCheck(records);
    const counts = await records.query<{ accounts: number; succeeded: number }>(
      `SELECT (SELECT count(*) FROM float_accounts)::int AS accounts,
              (SELECT count(*) FROM purchases WHERE state = 'succeeded')::int AS succeeded`,
    );
    const { accounts, succeeded } = counts.rows[0];
    const shown = scope.display(values.reveal, () => new SqlAuditTrail(records));
    const found = problems.length === 0 ? problems : await shown(problems);
    if (values.json) io.stdout(JSON.stringify({ accounts, succeeded, problems: found }, null, 2));
    else if (found.length === 0)
      io.stdout(`ledger adds up: ${accounts} accounts, ${succeeded} succeeded purchases (one confirm each)`);
    else for (const problem of found) io.stdout(problem.message);
    if (problems.length === 0) return EXIT.ok;
    io.stderr(`error: the ledger does not add up: ${problems.length} problem(s) (above)`);
    return EXIT.failed;
  });
}
