import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, type FaultRow } from './harness';

/** The order files appear in the table (then any other, by name). */
const ORDER = ['purchase-service', 'processes', 'redis.', 'redis-flush', 'sms-provider', 'scale-out'];

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The rows every fault file left, as a Markdown table. */
export function faultTable(rows: FaultRow[]): string {
  const header = [
    'fault',
    'intents',
    'debits',
    'tokens delivered',
    'failures told',
    'double debits',
    'duplicate SMS',
    'time to recover',
  ];
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of rows)
    lines.push(
      `| ${[
        row.fault + (row.note ? ` (${row.note})` : ''),
        row.intents,
        row.debits,
        row.tokensDelivered,
        row.failuresTold,
        row.doubleDebits,
        row.duplicateSms,
        seconds(row.recoverMs),
      ].join(' | ')} |`,
    );
  return lines.join('\n');
}

function rank(file: string): number {
  const index = ORDER.findIndex((name) => file.startsWith(name));
  return index === -1 ? ORDER.length : index;
}

/** Jest's global teardown: print the table and write test-artifacts/faults.md. */
export function printTable(): void {
  const dir = path.join(ARTIFACTS, 'faults');
  if (!existsSync(dir)) return;
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const rows = files.flatMap((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as FaultRow[]);
  const table = faultTable(rows);
  const totals = rows.reduce(
    (sum, row) => ({
      intents: sum.intents + row.intents,
      doubleDebits: sum.doubleDebits + row.doubleDebits,
      lost: sum.lost + (row.debits - row.tokensDelivered),
    }),
    { intents: 0, doubleDebits: 0, lost: 0 },
  );
  const summary =
    `${rows.length} faults, ${totals.intents} intents: ${totals.doubleDebits} double debits, ` +
    `${totals.lost} tokens lost.`;
  const text = `# Fault suite (npm run test:faults), ${new Date().toISOString()}\n\n${table}\n\n${summary}\n`;
  writeFileSync(path.join(ARTIFACTS, 'faults.md'), text);
  process.stdout.write(`\n${table}\n\n${summary}\nwritten to test-artifacts/faults.md\n`);
}
