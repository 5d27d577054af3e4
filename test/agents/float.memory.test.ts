import { MemoryFloatStore } from '../../src/agents/ledger';
import { floatStoreContract } from './float.contract';

floatStoreContract('memory', async () => new MemoryFloatStore());
