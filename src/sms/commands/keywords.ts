import type { Locales } from '../../i18n';

/** Every command the SMS grammar knows; each has its keywords in every locale file. */
export const COMMANDS = [
  'ELEC',
  'WATER',
  'AIR',
  'YES',
  'NO',
  'TOKEN',
  'LANG',
  'HELP',
  // A repeat buyer's saved meters.
  'METERS',
  // Field agents only (from their registered number).
  'SELL',
  'BAL',
  'SALES',
  'PIN',
  'BLOCK',
  // The agent network.
  'TRANSFER',
  'AGENTS',
  'DEPOSIT',
  'TOPUP',
  'SUMMARY',
  'DISABLE',
  'ENABLE',
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** What a first word means: the command, and the language whose keyword it is (null: several). */
export interface KeywordMeaning {
  command: CommandName;
  language: string | null;
}

/**
 * The keyword table built from the locale files (`sms.keyword.<COMMAND>`: aliases separated by
 * spaces), so a translator corrects a Setswana keyword without a code change. Every language's
 * keywords work for every sender; the language is a hint for the reply when the sender has no
 * preference yet.
 */
export class Keywords {
  private readonly table = new Map<string, KeywordMeaning>();
  /** Language names, codes and tags a `LANG` argument may use → language code. */
  private readonly languages = new Map<string, string>();

  constructor(locales: Locales) {
    for (const lang of locales.languages()) {
      for (const command of COMMANDS) {
        for (const alias of (locales.template(lang, `sms.keyword.${command}`) ?? '').split(/\s+/)) {
          const word = alias.trim().toUpperCase();
          if (word === '') continue;
          const seen = this.table.get(word);
          if (!seen) this.table.set(word, { command, language: lang });
          else if (seen.command === command && seen.language !== lang) seen.language = null;
          else if (seen.command !== command)
            throw new Error(`SMS keyword ${word} means both ${seen.command} and ${command}`);
        }
      }
      const meta = locales.meta(lang);
      for (const name of [lang, meta.tag, meta.name]) this.languages.set(name.toUpperCase(), lang);
    }
  }

  /** The meaning of a first word (already upper-cased), or undefined. */
  meaning(word: string): KeywordMeaning | undefined {
    return this.table.get(word);
  }

  /** The language code a `LANG` argument names (`TN`, `tn-BW`, `Setswana`), or undefined. */
  language(word: string): string | undefined {
    return this.languages.get(word.toUpperCase());
  }

  /** The first keyword of a command in a language (what help texts show). */
  static first(locales: Locales, lang: string, command: CommandName): string {
    return (locales.t(lang, `sms.keyword.${command}`).trim().split(/\s+/)[0] ?? command).toUpperCase();
  }
}
