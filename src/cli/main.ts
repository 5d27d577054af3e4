/**
 * Operator CLI (`npm run cli -- <command>`): dispatches to a command family, one file each
 * (`./service` for check/validate/confirm/retry, `./blocklist`, `./agent`, `./purchases`,
 * `./ledger`, `./report`, `./sms`, `./payments`, `./cases`, `./notice`, `./subscriber`, `./reconcile`); what
 * they share is in `./kit`. A family is loaded only when it runs, so `--help` answers at once.
 */
import winston from 'winston';
import { logger, setLogLevel } from '../observability/logger';
import { EXIT, type CliIo } from './kit';
import { serviceCli } from './service';

export { EXIT, type CliIo };

const USAGE = `usage: npm run cli -- <command> [flags]
commands:
  check                      log in; list products, providers, identifier rules, accounts
  validate                   quote a purchase (no state change)
  confirm                    buy (debits the account; never re-sent by this tool)
  retry                      reconcile an earlier confirm by --identifier and --ref
  blocklist add|remove|list  numbers (--msisdn) and identifiers (--identifier) that may not buy
                             (needs DATABASE_URL)
  agent <command>            field agents: add, list, show, disable, enable, reset-pin, credit,
                             adjust, statement (npm run cli -- agent help)
  purchases <command>        customer care: find, show, resolve, reconcile, audit (needs DATABASE_URL;
                             npm run cli -- purchases help)
  ledger check               floats add up to their entries, one confirm per succeeded purchase
                             (needs DATABASE_URL; exit 1 with what does not)
  report daily --date D      the day's sales, agents and open purchases [--csv | --json]
                             (needs DATABASE_URL, or GET /admin/reports/daily?date=)
  sms undelivered            SMS that never reached the phone; sms resend-undelivered resends them
                             (needs REDIS_URL; npm run cli -- sms help)
  payments unmatched         money a provider says it took that no payment of ours holds (for care);
                             payments resolve-unmatched ID --note TEXT closes one once dealt with
                             (needs DATABASE_URL; npm run cli -- payments help)
  cases list|show|close      complaint cases, the care queue beside needs_attention (needs DATABASE_URL)
  operator <command>         the console's named accounts: add, list, reset, disable, enable, token
                             (needs DATABASE_URL; npm run cli -- operator help)
  reconcile <command>        the provider's statement, the wallet and our records matched: import,
                             day --date D (exit 1 while open), the mismatch queue (needs DATABASE_URL;
                             npm run cli -- reconcile help)
  notice set|show|clear      the operator's notice, the first line of the menu (needs DATABASE_URL)
  subscriber meters|forget   a number's saved meters; forget: a data-deletion request (needs DATABASE_URL)
flags:
  --product ELECTRICITY|AIRTIME|WATER (default ELECTRICITY)   --provider CODE
  --identifier METER_OR_NUMBER   --amount 100.00   --phone 2677XXXXXXX
  --account ID               default: DEBIT_ACCOUNT_ID, else the first CURRENT account (as the gateway)
  --ref EXTERNAL_REFERENCE   confirm refuses one the service already knows (asked with retry first)
  --language en-BW   --json
  --yes                      confirm against a real service (it debits real money)
no PURCHASE_API_BASE_URL: the sandbox of a running npm start / npm run sandbox (SANDBOX_PORT), else one of its own`;

type Family = (argv: string[], io: CliIo) => Promise<number>;

/** The families with commands, flags and usage of their own (`npm run cli -- <family> help`). */
const FAMILIES: Record<string, () => Promise<Family>> = {
  blocklist: async () => (await import('./blocklist')).blocklistCli,
  agent: async () => (await import('./agent')).agentCli,
  purchases: async () => (await import('./purchases')).purchasesCli,
  sms: async () => (await import('./sms')).smsCli,
  payments: async () => (await import('./payments')).paymentsCli,
  ledger: async () => (await import('./ledger')).ledgerCli,
  report: async () => (await import('./report')).reportCli,
  subscriber: async () => (await import('./subscriber')).subscriberCli,
  notice: async () => (await import('./notice')).noticeCli,
  cases: async () => (await import('./cases')).casesCli,
  operator: async () => (await import('./operator')).operatorCli,
  reconcile: async () => (await import('./reconcile')).reconcileCli,
};

/** Runs one command; returns the exit code. Everything it prints goes through `io`. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const family = Object.hasOwn(FAMILIES, argv[0] ?? '') ? FAMILIES[argv[0]] : undefined;
  if (family) return (await family())(argv.slice(1), io);
  return serviceCli(argv, io, USAGE);
}

if (require.main === module) {
  // Logs go to stderr so stdout stays the command's output (and valid JSON with --json).
  logger.clear();
  logger.add(new winston.transports.Console({ stderrLevels: Object.keys(winston.config.npm.levels) }));
  setLogLevel('error'); // until the configuration is read
  main(process.argv.slice(2), {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
  }).then(
    (code) => {
      process.exitCode = code;
      // The command is over: a client still reconnecting (Redis lost mid-command) must not keep
      // the shell waiting. Unref'd, so a process with nothing left open exits at once as usual.
      setTimeout(() => process.exit(code), 2000).unref();
    },
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
