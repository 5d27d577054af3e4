export {
  loadLocales,
  Locales,
  MessageCatalogueError,
  languageOf,
  placeholdersOf,
  FALLBACK_LANG,
} from './catalogue';
export type { MessageCatalogue, Lang, MessageParams } from './catalogue';
export { renderScreen, DEFAULT_SCREEN_LIMIT, NAV_INPUT, MAX_OPTIONS } from './screen';
export type { ScreenInput, RenderedOption, RenderedScreen } from './screen';
export { transliterate, encodingOf, measure, smsParts } from './gsm';
export type { SmsEncoding } from './gsm';
export { successSms } from './sms';
export type { RenderedSms, SmsToken, SuccessSms } from './sms';
export { localDate } from './local-time';
