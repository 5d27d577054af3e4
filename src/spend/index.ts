export { Spend } from './spend';
export { SqlSpendStore } from './sql';
export type { BlockKind, SpendStore, DayUsage } from './store';
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
