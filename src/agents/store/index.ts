export * from './store';
export { SqlAgentStore } from './sql';
