import type { Locales } from '../../i18n';
import { localDay, localTime } from '../../i18n/local-time';
import type { PurchaseRecord } from '../../purchases/types';
import { formatMoney, type Money } from '../../vas/money';
import type { Transaction, VasProduct } from '../../vas/port';
import { parseTokens, tokensForDisplay } from '../../vas/tokens';
import { maskMsisdn } from '../../observability/logger';
import type { ParseProblem } from '../commands/grammar';
import { Keywords, type CommandName } from '../commands/keywords';
import type { PendingQuote } from './store';

/**
 * What the SMS conversation says, in the sender's language: the grammar, why a message is not
 * a command, quotes, tokens and sales. Words only; no reads, no decisions.
 */
export class MoTexts {
  constructor(
    private readonly locales: Locales,
    private readonly settings: { quoteTtlS: number; timeZone: string },
  ) {}

  t(lang: string, key: string, params: Record<string, string | number> = {}): string {
    return this.locales.t(lang, key, params);
  }

  /** The first keyword of `command` in the sender's language (`YES`, `EE`, ...). */
  keyword(lang: string, command: CommandName): string {
    return Keywords.first(this.locales, this.locales.resolve(lang), command);
  }

  /** The grammar in the sender's language, keywords as that language writes them. */
  help(lang: string): string {
    const k = (c: CommandName): string => this.keyword(lang, c);
    return this.t(lang, 'sms.mo.help', {
      elec: k('ELEC'),
      water: k('WATER'),
      air: k('AIR'),
      yes: k('YES'),
      no: k('NO'),
      token: k('TOKEN'),
      meters: k('METERS'),
      lang: k('LANG'),
    });
  }

  /** Why a message is not a command, in the sender's language. */
  problemText(lang: string, problem: ParseProblem): string {
    switch (problem.code) {
      case 'unknownCommand':
        return this.t(lang, 'sms.mo.reason.unknownCommand');
      case 'usage':
        return this.t(lang, `sms.mo.reason.usage.${problem.command}`, {
          keyword: this.keyword(lang, problem.command),
        });
      case 'amount':
        return this.t(lang, 'sms.mo.reason.amount');
      case 'identifier': {
        const product = problem.command === 'WATER' ? 'WATER' : 'ELECTRICITY';
        return this.t(lang, 'sms.mo.reason.identifier', {
          label: capitalise(this.t(lang, `identifier.label.${product}`)),
        });
      }
      case 'phone':
        return this.t(lang, 'sms.mo.reason.phone');
      case 'quoteCode':
        return this.t(lang, 'sms.mo.reason.quoteCode', { keyword: this.keyword(lang, 'YES') });
      case 'pin':
        return this.t(lang, 'sms.mo.reason.pin');
      case 'language':
        return this.t(lang, 'sms.mo.reason.language', { keyword: this.keyword(lang, 'LANG') });
    }
  }

  /** An identifier the product's rules refuse: its label and the length or pattern expected. */
  identifierProblem(
    lang: string,
    product: VasProduct,
    check: { reason: string; min?: number; max?: number },
  ): string {
    const key =
      check.reason === 'pattern'
        ? 'sms.mo.reason.identifierPattern'
        : check.min !== undefined && check.min === check.max
          ? 'sms.mo.reason.identifierExact'
          : check.min !== undefined && check.max !== undefined
            ? 'sms.mo.reason.identifierLength'
            : 'sms.mo.reason.identifierPattern';
    const label = capitalise(this.t(lang, `identifier.label.${product.productType}`));
    return this.t(lang, key, this.paramsOf(lang, key, { label, min: check.min ?? 0, max: check.max ?? 0 }));
  }

  /** The service's refusal: our `reason.<code>` line, else the provider's own words ("only once the debt is paid"). */
  serviceReason(lang: string, code: string, message: string): string {
    const key = `reason.${code}`;
    return this.locales.template(lang, key) !== undefined ? this.t(lang, key) : message;
  }

  /**
   * A subscriber's quote, with the name and units the provider gave (else the name saved with
   * the meter: a wrong default meter is seen before paying); a gift names its number, masked.
   */
  quote(
    lang: string,
    quote: PendingQuote,
    tx: Transaction,
    product: VasProduct,
    savedName: string | null = null,
  ): string {
    const text = this.quoteLines(lang, quote, tx, product, savedName);
    const { intent } = quote;
    if (intent.productType === 'AIRTIME' || intent.beneficiaryMsisdn === intent.requesterMsisdn) return text;
    return this.t(lang, 'sms.mo.quoteGift', { quote: text, msisdn: maskMsisdn(intent.beneficiaryMsisdn) });
  }

  private quoteLines(
    lang: string,
    quote: PendingQuote,
    tx: Transaction,
    product: VasProduct,
    savedName: string | null,
  ): string {
    const { intent } = quote;
    const common = this.quoteParams(lang, quote, tx);
    if (intent.productType === 'AIRTIME') {
      const provider =
        product.providers.find((p) => p.code === intent.providerCode)?.code ?? intent.providerCode;
      const { product: _unused, ...airtime } = common;
      return this.t(lang, 'sms.mo.quoteAirtime', { ...airtime, provider });
    }
    const name = tx.subscriberDetails?.trim() || savedName?.trim() || null;
    const units = tx.units;
    if (name && units) return this.t(lang, 'sms.mo.quote', { ...common, name, units });
    if (units) return this.t(lang, 'sms.mo.quoteNoName', { ...common, units });
    if (name) return this.t(lang, 'sms.mo.quoteNoUnits', { ...common, name });
    return this.t(lang, 'sms.mo.quoteBasic', common);
  }

  /** An agent's quote: the customer, the total, and what the float holds after it (null: an account). */
  saleQuote(lang: string, quote: PendingQuote, tx: Transaction, floatAfter: Money | null): string {
    const params = {
      ...this.quoteParams(lang, quote, tx),
      // The provider's name for the meter or account, if any (airtime has none).
      name: tx.subscriberDetails?.trim() ? ` ${tx.subscriberDetails.trim()}` : '',
      customer: quote.intent.beneficiaryMsisdn,
    };
    if (!floatAfter) return this.t(lang, 'sms.agent.quoteNoFloat', params);
    return this.t(lang, 'sms.agent.quote', { ...params, float: formatMoney(floatAfter) });
  }

  /** What every quote names: the product, the number, the money, and how to confirm it in time. */
  private quoteParams(lang: string, quote: PendingQuote, tx: Transaction) {
    const { intent } = quote;
    return {
      product: this.productName(lang, intent.productType),
      identifier: intent.subscriberIdentifier,
      amount: formatMoney(intent.amount),
      charges: formatMoney(tx.charge),
      total: formatMoney(tx.total),
      yes: this.keyword(lang, 'YES'),
      code: quote.code,
      minutes: this.minutes(),
    };
  }

  /** One purchase's tokens, for TOKEN. */
  tokenItem(lang: string, record: PurchaseRecord): string {
    const tokens = tokensForDisplay(parseTokens(record.result?.rawToken ?? null)).map((t) =>
      t.description ? `${t.description}: ${t.value}` : t.value,
    );
    return this.t(lang, 'sms.mo.tokenItem', {
      date: localDay(new Date(record.settledAt ?? record.createdAt), this.settings.timeZone),
      product: this.productName(lang, record.intent.productType),
      identifier: record.intent.subscriberIdentifier,
      tokens: tokens.join('\n'),
      total: formatMoney(record.result?.total ?? record.intent.amount),
      reference: record.result?.reference ?? record.externalReference,
    });
  }

  /** METERS: the saved meters per product, newest first (`SavedMeter`s grouped by product). */
  meters(lang: string, saved: { productType: string; identifier: string; name: string | null }[]): string {
    if (saved.length === 0) return this.t(lang, 'sms.mo.metersNone', { example: this.example(lang) });
    const products = [...new Set(saved.map((m) => m.productType))];
    const lists = products.map((productType) =>
      this.t(lang, 'sms.mo.metersProduct', {
        product: this.productName(lang, productType),
        items: saved
          .filter((m) => m.productType === productType)
          .map((m, i) => `${i + 1} ${m.identifier}${m.name ? ` ${m.name}` : ''}`)
          .join('\n'),
      }),
    );
    return this.t(lang, 'sms.mo.meters', { lists: lists.join('\n'), elec: this.keyword(lang, 'ELEC') });
  }

  /** `ELEC 100` from a number without a saved meter: how to name one. */
  noSavedMeter(lang: string, product: 'ELECTRICITY' | 'WATER', amountMinor: number): string {
    const command = product === 'WATER' ? 'WATER' : 'ELEC';
    return this.t(lang, 'sms.mo.noSavedMeter', {
      label: this.t(lang, `identifier.label.${product}`),
      keyword: this.keyword(lang, command),
      example: product === 'WATER' ? '2000123456' : '01234567890',
      amount:
        String(Math.floor(amountMinor / 100)) +
        (amountMinor % 100 === 0 ? '' : `.${String(amountMinor % 100).padStart(2, '0')}`),
    });
  }

  /** An agent's last sales, for SALES. */
  sales(lang: string, sales: PurchaseRecord[]): string {
    if (sales.length === 0) return this.t(lang, 'sms.agent.salesNone');
    return sales
      .map((r) =>
        this.t(lang, 'sms.agent.salesItem', {
          date: localDay(new Date(r.createdAt), this.settings.timeZone),
          product: this.productName(lang, r.intent.productType),
          identifier: r.intent.subscriberIdentifier,
          total: formatMoney(r.result?.total ?? r.intent.amount),
          state: r.state,
          reference: r.result?.reference ?? r.externalReference,
        }),
      )
      .join('\n');
  }

  /** `YES`-less example of a purchase, for "you have no purchase waiting". */
  example(lang: string): string {
    return `${this.keyword(lang, 'ELEC')} 01234567890 100`;
  }

  localTime(iso: string): string {
    return localTime(new Date(iso), this.settings.timeZone);
  }

  productName(lang: string, productType: string): string {
    return this.t(lang, `product.${productType}`);
  }

  private minutes(): number {
    return Math.max(1, Math.round(this.settings.quoteTtlS / 60));
  }

  /** Only the params a template names (strict catalogues refuse extras). */
  private paramsOf(
    lang: string,
    key: string,
    all: Record<string, string | number>,
  ): Record<string, string | number> {
    const template = this.locales.template(lang, key) ?? '';
    return Object.fromEntries(Object.entries(all).filter(([name]) => template.includes(`{${name}}`)));
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
