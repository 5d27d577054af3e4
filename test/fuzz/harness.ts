import { GENERIC_MAPPING } from '../../src/ussd/aggregators/generic/cases';
import { loadConfig } from '../../src/config';
import type { Gateway } from '../../src/gateway/app';
import { ledger, startTestGateway } from '../e2e/harness';
import { closeClient, table, type Answer, type Counts } from './tally';

/**
 * What every HTTP fuzz file shares: a whole gateway (`startGateway` with its embedded sandbox,
 * as `npm start` runs it; the generic aggregator mapped), the hop budget it is held to, the
 * number of cases (`FUZZ_RUNS`; `npm run test:fuzz`: 100,000 per property), the ledger, and
 * the table of counts printed when the file ends.
 */

export const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const env = { USSD_GENERIC_MAPPING: GENERIC_MAPPING };
/** USSD_HOP_BUDGET_MS as this gateway is configured: the bound an aggregator holds us to. */
export const BUDGET_MS = loadConfig({ PORT: '0', SANDBOX_PORT: '0', ...env }).ussd.hopBudgetMs;

export interface FuzzGateway {
  gateway: Gateway;
  /** Transactions in the sandbox's ledger. */
  transactions(): Promise<number>;
  /** The process still answers its health check. */
  healthy(): Promise<boolean>;
  /** Counts of one property, printed in the file's table at the end. */
  counts(property: string): Counts;
  close(): Promise<void>;
}

/** `overrides`: the file's own variables over the shared ones (another generic mapping). */
export async function startFuzzGateway(
  title: string,
  overrides: Record<string, string> = {},
): Promise<FuzzGateway> {
  const gateway = await startTestGateway({ ...env, ...overrides });
  const rows: Counts[] = [];
  return {
    gateway,
    transactions: async () => (await ledger(gateway.purchaseServiceUrl)).length,
    async healthy() {
      const r = await fetch(`${gateway.url}/healthz`).catch(() => null);
      return r?.status === 200;
    },
    counts(property) {
      const row: Counts = {
        property,
        cases: 0,
        requests: 0,
        serverErrors: 0,
        crashes: 0,
        overBudget: 0,
        ledgerChanges: 0,
        slowestMs: 0,
      };
      rows.push(row);
      return row;
    },
    async close() {
      closeClient();
      await gateway.close();
      process.stdout.write(`\n${title} (hop budget ${BUDGET_MS} ms):\n${table(rows)}\n`);
    },
  };
}

/**
 * The per-request properties, checked without jest's `expect` (the hot loop runs 100,000s of
 * times): answered, not a 5xx, within the hop budget. The error names the request.
 */
export function assertAnswered(answer: Answer, what: () => string): void {
  const problem =
    answer.status === null
      ? `no answer (${answer.error})`
      : answer.status >= 500
        ? `status ${answer.status}: ${answer.body.slice(0, 200)}`
        : answer.ms > BUDGET_MS
          ? `answered in ${Math.round(answer.ms)} ms, past the ${BUDGET_MS} ms hop budget`
          : null;
  if (problem) throw new Error(`${problem} for ${what()}`);
}
