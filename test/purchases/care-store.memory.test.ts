import { MemoryPurchaseStore } from '../../src/purchases/store';
import { careStoreContract, RETENTION_MS } from './care-store.contract';

careStoreContract('memory', async () => {
  let now = new Date();
  return {
    store: new MemoryPurchaseStore(() => now, { retentionMs: RETENTION_MS }),
    setNow: (at) => (now = at),
  };
});
