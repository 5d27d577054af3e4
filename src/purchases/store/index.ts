export * from './store';
export { SqlPurchaseStore, type SqlPurchaseStoreOptions } from './sql';
