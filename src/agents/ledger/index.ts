export * from './store';
export { SqlFloatStore } from './sql';
export { ledgerDiscrepancies, type LedgerDiscrepancy } from './sql';
