import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AdapterCases } from '../../src/ussd/wire-cases';

/**
 * Every adapter's table of wire cases, found by folder (`src/ussd/aggregators/<name>/cases.ts`), so a
 * new aggregator's table is run by the shared runner and the end-to-end table without being
 * listed anywhere: its folder plus its line in `ussdAdapters` is all it takes.
 */
const USSD_DIR = path.join(__dirname, '../../src/ussd/aggregators');

function isAdapterCases(value: unknown): value is AdapterCases {
  return (
    typeof value === 'object' && value !== null && 'adapter' in value && 'parse' in value && 'dialer' in value
  );
}

function casesOf(folder: string): AdapterCases {
  // Found at run time by folder, hence require rather than an import per aggregator.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(path.join(USSD_DIR, folder, 'cases')) as Record<string, unknown>;
  const tables = Object.values(module).filter(isAdapterCases);
  if (tables.length !== 1) throw new Error(`${folder}/cases.ts must export exactly one table of wire cases`);
  return tables[0];
}

export const ALL_ADAPTER_CASES: AdapterCases[] = readdirSync(USSD_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(USSD_DIR, d.name, 'cases.ts')))
  .map((d) => d.name)
  .sort()
  .map(casesOf);
