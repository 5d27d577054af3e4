export * from './store';
export { MemoryAgentStore } from './memory';
export { RedisAgentStore, AGENT_SCRIPTS } from './redis';
