export { Spend } from './spend';
export { MemorySpendStore, RedisSpendStore, type SpendStore, type DayUsage } from './store';
export {
  checkAmount,
  DEFAULT_AMOUNTS,
  DEFAULT_DAILY,
  parseAmountRanges,
  refusalText,
  SpendRefusedError,
  type AmountRange,
  type DailyLimits,
  type SpendRefusal,
  type SpendRules,
} from './rules';
export type { BlockKind } from './keys';
