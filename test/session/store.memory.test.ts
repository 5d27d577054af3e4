import { MemorySessionStore } from '../../src/session/store';
import { sessionStoreContract } from './store.contract';

sessionStoreContract('memory', async () => new MemorySessionStore());
