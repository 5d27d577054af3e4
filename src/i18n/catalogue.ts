import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** Values a message may interpolate; numbers are rendered with `String()`. */
export type MessageParams = Record<string, string | number>;

/** Language code used as the catalogue's file name (`en`, `tn`). */
export type Lang = string;

/** The language every other catalogue falls back to, key by key. */
export const FALLBACK_LANG = 'en';

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** How many distinct tags {@link Locales.resolve} remembers; past it, each is parsed per call. */
const MAX_RESOLVED_TAGS = 256;

const catalogueSchema = z
  .object({
    meta: z.object({ name: z.string().min(1), tag: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/) }),
  })
  .catchall(z.string().min(1));

/** One language's messages, flat `dotted.key → template`, plus its display name and BCP 47 tag. */
export interface MessageCatalogue {
  lang: Lang;
  meta: { name: string; tag: string };
  messages: Record<string, string>;
}

/** Placeholder names of a template, sorted and de-duplicated (`"{a} {b} {a}"` → `['a','b']`). */
export function placeholdersOf(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (m) => m[1]))].sort();
}

/** Thrown for catalogue problems: bad file, missing key or wrong params (in strict mode). */
export class MessageCatalogueError extends Error {
  override name = 'MessageCatalogueError';
}

/**
 * The loaded catalogues. `t()` is strict when asked (tests): a missing key, a missing param or an
 * unknown param throws. Otherwise (production) a key missing from a non-English catalogue falls
 * back to English, a missing param renders empty, and an unknown key renders as the key itself,
 * so a translation slip never crashes a dialogue.
 */
export class Locales {
  private readonly byLang: Map<Lang, MessageCatalogue>;
  /**
   * {@link resolve}'s answers by tag: every line of every screen asks it, and parsing the tag
   * each time cost 1% of a loaded gateway. Bounded: tags come from catalogues and stored
   * preferences, but one from outside must not grow it without end.
   */
  private readonly resolved = new Map<string, Lang>();

  constructor(
    catalogues: MessageCatalogue[],
    readonly strict = false,
  ) {
    this.byLang = new Map(catalogues.map((c) => [c.lang, c]));
    if (!this.byLang.has(FALLBACK_LANG)) throw new MessageCatalogueError(`no "${FALLBACK_LANG}" catalogue`);
  }

  /** Language codes of every catalogue, English first then alphabetical. */
  languages(): Lang[] {
    return [...this.byLang.keys()].sort((a, b) =>
      a === FALLBACK_LANG ? -1 : b === FALLBACK_LANG ? 1 : a.localeCompare(b),
    );
  }

  /** BCP 47 tags of every catalogue (`en-BW`, `tn-BW`), in {@link languages} order. */
  tags(): string[] {
    return this.languages().map((l) => this.catalogue(l).meta.tag);
  }

  /** True when a catalogue exists for this language code or tag. */
  has(langOrTag: string): boolean {
    return this.byLang.has(languageOf(langOrTag));
  }

  /** Display name and tag of a language (`{name: 'Setswana', tag: 'tn-BW'}`). */
  meta(langOrTag: string): { name: string; tag: string } {
    return this.catalogue(this.resolve(langOrTag)).meta;
  }

  /** The catalogue language for a code or tag (`tn-BW` → `tn`), English when there is none. */
  resolve(langOrTag: string | undefined): Lang {
    if (!langOrTag) return FALLBACK_LANG;
    let lang = this.resolved.get(langOrTag);
    if (lang === undefined) {
      const parsed = languageOf(langOrTag);
      lang = this.byLang.has(parsed) ? parsed : FALLBACK_LANG;
      if (this.resolved.size < MAX_RESOLVED_TAGS) this.resolved.set(langOrTag, lang);
    }
    return lang;
  }

  /** Every message key of the English catalogue (the reference key set). */
  keys(): string[] {
    return Object.keys(this.catalogue(FALLBACK_LANG).messages);
  }

  /** The raw template of a key, or undefined. */
  template(langOrTag: string, key: string): string | undefined {
    return this.catalogue(this.resolve(langOrTag)).messages[key];
  }

  /** Renders `key` in the language of `langOrTag` with `{name}` placeholders filled from `params`. */
  t(langOrTag: string, key: string, params: MessageParams = {}): string {
    const lang = this.resolve(langOrTag);
    if (this.strict && lang !== languageOf(langOrTag)) {
      throw new MessageCatalogueError(`no catalogue for language "${langOrTag}"`);
    }
    let template = this.catalogue(lang).messages[key];
    if (template === undefined) {
      if (this.strict) throw new MessageCatalogueError(`missing key "${key}" in "${lang}"`);
      template = this.catalogue(FALLBACK_LANG).messages[key];
      if (template === undefined) return key;
    }
    if (this.strict) {
      const wanted = placeholdersOf(template);
      const unknown = Object.keys(params).filter((p) => !wanted.includes(p));
      const missing = wanted.filter((p) => !(p in params));
      if (unknown.length > 0 || missing.length > 0) {
        throw new MessageCatalogueError(
          `params of "${key}" in "${lang}": unknown [${unknown.join(', ')}], missing [${missing.join(', ')}]`,
        );
      }
    }
    // Most lines (a menu entry, a prompt) have nothing to fill in.
    if (!template.includes('{')) return template;
    return template.replace(PLACEHOLDER, (_m, name: string) =>
      Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : '',
    );
  }

  private catalogue(lang: Lang): MessageCatalogue {
    const c = this.byLang.get(lang);
    if (!c) throw new MessageCatalogueError(`no catalogue for language "${lang}"`);
    return c;
  }
}

/** Language subtag of a BCP 47 tag, lower-cased (`tn-BW` → `tn`, `EN_bw` → `en`). */
export function languageOf(tag: string): Lang {
  return tag.split(/[-_]/)[0].toLowerCase();
}

/** Parses and validates one catalogue file's JSON; the language code is the file's base name. */
export function parseMessageCatalogue(lang: Lang, json: unknown): MessageCatalogue {
  const parsed = catalogueSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MessageCatalogueError(
      `locale "${lang}": ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
  }
  const { meta, ...messages } = parsed.data;
  if (languageOf(meta.tag) !== lang) {
    throw new MessageCatalogueError(`locale "${lang}": meta.tag "${meta.tag}" is not for language "${lang}"`);
  }
  return { lang, meta, messages: messages as Record<string, string> };
}

/**
 * Finds `<repo>/locales` from this file whether it runs from `src/i18n` (jest, the test hook) or
 * from `dist/src/i18n` (the build does not copy JSON): the first ancestor holding `locales/en.json`.
 */
export function defaultLocalesDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'locales');
    if (fs.existsSync(path.join(candidate, `${FALLBACK_LANG}.json`))) return candidate;
    dir = path.dirname(dir);
  }
  throw new MessageCatalogueError(`no locales/ directory found above ${__dirname}`);
}

/**
 * Loads every `*.json` catalogue in `dir`. Strict by default under jest (`NODE_ENV=test`), so a
 * missing key or a wrong param fails the tests that render it; lenient in production.
 */
export function loadLocales(dir: string = defaultLocalesDir(), options: { strict?: boolean } = {}): Locales {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  const catalogues = files.map((file) => {
    const lang = path.basename(file, '.json');
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch (err) {
      throw new MessageCatalogueError(`locale "${lang}": ${(err as Error).message}`);
    }
    return parseMessageCatalogue(lang, json);
  });
  return new Locales(catalogues, options.strict ?? process.env.NODE_ENV === 'test');
}
