import { MemoryAgentStore } from '../../src/agents/store';
import { agentStoreContract } from './store.contract';

agentStoreContract('memory', async () => new MemoryAgentStore());
