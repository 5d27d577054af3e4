export * from './store';
export { MemoryFloatStore } from './memory';
export { RedisFloatStore, FLOAT_SCRIPTS } from './redis';
