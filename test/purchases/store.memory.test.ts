import { MemoryPurchaseStore } from '../../src/purchases/store';
import { purchaseStoreContract } from './store.contract';

purchaseStoreContract('memory', async () => new MemoryPurchaseStore());
