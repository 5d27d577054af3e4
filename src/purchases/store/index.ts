export * from './store';
export { MemoryPurchaseStore } from './memory';
export { RedisPurchaseStore, type RedisPurchaseStoreOptions } from './redis';
export { purchaseKeys, type PurchaseKeys } from './keys';
