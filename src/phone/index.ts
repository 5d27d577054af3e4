export { normaliseMsisdn, regionFromLanguageTag } from './msisdn';
/** Re-exported so phone-handling code finds it here; the one implementation lives with the logger. */
export { maskMsisdn } from '../observability/logger';
export type { MsisdnResult, CountryCode } from './msisdn';
