export * from './types';
export { sessionKeys, msisdnKeys } from './keys';
export { MemorySessionStore } from './memory';
export { RedisSessionStore } from './redis';
