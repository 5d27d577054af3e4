/**
 * What the "provider" says about a subscriber and an amount: the scenario profile of each test
 * identifier (section 8.3), the tariff breakdown (2.4), units and tokens (2.5). Pure functions.
 */
import { createHash } from 'node:crypto';
import { SandboxError } from './errors';
import { formatMoney, share } from './money';
import { TEST_METERS, TEST_WATER_ACCOUNTS, type ProductType, type ScenarioId } from './scenarios';

/** Provider-side behaviour of one subscriber identifier. */
export interface Profile {
  scenario: ScenarioId;
  consumer: string;
  providerDetails: string;
  /** Fixed charge in minor units taken by the provider before units are computed (metadata.charge). */
  fixedChargeMinor: number;
  /** Percentage tariff charge added to metadata.charge (scenarios 1a, 1b). */
  tariffChargePercent: number;
  /** The vend amount (net) must exceed this, in minor units. */
  minimumExclusiveMinor: number | null;
  maximumMinor: number | null;
  /** Scenario 2*: the provider refuses the subscriber outright. */
  refusal: (() => SandboxError) | null;
  multiToken: boolean;
  delayed: boolean;
}

const base: Profile = {
  scenario: '1',
  consumer: 'SANDBOX CUSTOMER',
  providerDetails: 'SGC:600675 KRN:1 TI:01 TT:02 Tariff:Domestic',
  fixedChargeMinor: 0,
  tariffChargePercent: 0,
  minimumExclusiveMinor: null,
  maximumMinor: null,
  refusal: null,
  multiToken: false,
  delayed: false,
};

const METER_PROFILES: Record<string, Profile> = {
  [TEST_METERS.active]: { ...base, consumer: 'KABELO MOTSUMI' },
  [TEST_METERS.tariffCharge]: {
    ...base,
    scenario: '1a',
    consumer: 'NALEDI SETSHWAELO',
    tariffChargePercent: 5,
  },
  [TEST_METERS.subAccountSplit]: {
    ...base,
    scenario: '1b',
    consumer: 'THABO KGOSI',
    tariffChargePercent: 5,
    minimumExclusiveMinor: 6_000,
    providerDetails: 'SGC:600675 KRN:1 TI:01 TT:02 Tariff:Domestic SubAccount:DEBT-SPLIT-25%',
  },
  [TEST_METERS.active13]: { ...base, scenario: '1c', consumer: 'BOITUMELO DINTWE' },
  [TEST_METERS.blocked]: {
    ...base,
    scenario: '2',
    consumer: 'BLOCKED CUSTOMER',
    refusal: () => new SandboxError('meter_blocked', 'Blocked customer', 'subscriber_identifier'),
  },
  [TEST_METERS.purchasesBlocked]: {
    ...base,
    scenario: '2a',
    consumer: 'BLOCKED PURCHASES',
    refusal: () => new SandboxError('meter_blocked', 'Customer purchases blocked', 'subscriber_identifier'),
  },
  [TEST_METERS.debtFirst]: {
    ...base,
    scenario: '2b',
    consumer: 'DEBT CUSTOMER',
    refusal: () =>
      new SandboxError('provider_error', 'Purchase only allowed once the debt is paid', null, false),
  },
  [TEST_METERS.accountBlock]: {
    ...base,
    scenario: '2c',
    consumer: 'ACCOUNT BLOCK',
    refusal: () => new SandboxError('provider_error', 'Account-level transaction block', null, false),
  },
  [TEST_METERS.notFound]: {
    ...base,
    scenario: '2d',
    consumer: '',
    refusal: () =>
      new SandboxError('meter_not_found', 'Meter not found or disconnected', 'subscriber_identifier'),
  },
  [TEST_METERS.autoKeyChange]: {
    ...base,
    scenario: '3',
    consumer: 'KEY CHANGE CUSTOMER',
    fixedChargeMinor: 100_000,
    minimumExclusiveMinor: 100_000,
    multiToken: true,
    providerDetails: 'SGC:600675 KRN:1 TI:01 TT:02 Tariff:Domestic NewSGC:600676 NewKRN:2',
  },
  [TEST_METERS.fixedCharge]: {
    ...base,
    scenario: '5',
    consumer: 'FIXED CHARGE CUSTOMER',
    fixedChargeMinor: 100_000,
    minimumExclusiveMinor: 100_000,
  },
  [TEST_METERS.delayed]: { ...base, scenario: '6', consumer: 'DELAYED CUSTOMER', delayed: true },
  [TEST_METERS.maxVend]: { ...base, scenario: '7', consumer: 'MAX VEND CUSTOMER', maximumMinor: 10_000_000 },
};

const WATER_PROFILES: Record<string, Profile> = {
  [TEST_WATER_ACCOUNTS.active]: {
    ...base,
    consumer: 'MPHO RAMOTSWA',
    providerDetails: 'WUC Gaborone Domestic',
  },
};

/**
 * The profile of a subscriber, or null when the staging lock refuses it. With the lock off,
 * any well-formed identifier that is not a test identifier behaves like scenario 1.
 */
export function profileFor(productType: ProductType, identifier: string, meterLock: boolean): Profile | null {
  if (productType === 'AIRTIME') return { ...base, consumer: '', providerDetails: '' };
  const known = (productType === 'ELECTRICITY' ? METER_PROFILES : WATER_PROFILES)[identifier];
  if (known) return known;
  if (meterLock) return null;
  return productType === 'WATER'
    ? { ...base, consumer: 'WATER CUSTOMER', providerDetails: 'WUC Domestic' }
    : { ...base };
}

/** Top-level service charge (the `charge` field) per product, in minor units. */
export const SERVICE_CHARGE_MINOR: Record<ProductType, number> = { ELECTRICITY: 150, AIRTIME: 0, WATER: 150 };

/** Provider quote for a vend of `netMinor`: metadata (2.4) and units. */
export interface ProviderQuote {
  metadata: Record<string, string>;
  /** Numeric units without the unit suffix, e.g. `45.2` (kWh) or `8772` (L); null for airtime. */
  units: string | null;
  unitName: 'kWh' | 'L' | null;
}

/** Electricity: BWP 1.20 per kWh after fixed/tariff charges, VAT 14% inclusive, levy 2%, fee 1%. */
export function quoteProvider(productType: ProductType, profile: Profile, netMinor: number): ProviderQuote {
  if (productType === 'AIRTIME') return { metadata: {}, units: null, unitName: null };
  if (productType === 'WATER') {
    const vat = share(netMinor, 14, 114);
    const cost = netMinor - vat;
    // BWP 10.00 per kL: one thebe of cost buys one litre.
    return {
      metadata: { vat: formatMoney(vat), cost: formatMoney(cost) },
      units: String(cost),
      unitName: 'L',
    };
  }
  const charge = Math.min(
    netMinor,
    profile.fixedChargeMinor + share(netMinor, profile.tariffChargePercent, 100),
  );
  const rest = netMinor - charge;
  const vat = share(rest, 14, 114);
  const levy = share(rest, 2, 100);
  const regulatoryFee = share(rest, 1, 100);
  const cost = rest - vat - levy - regulatoryFee;
  const tenths = share(cost, 10, 120);
  return {
    metadata: {
      vat: formatMoney(vat),
      levy: formatMoney(levy),
      regulatory_fee: formatMoney(regulatoryFee),
      charge: formatMoney(charge),
      cost: formatMoney(cost),
      provider_subscriber_details: profile.providerDetails,
    },
    units: `${Math.floor(tenths / 10)}.${tenths % 10}`,
    unitName: 'kWh',
  };
}

/** 20 digits grouped in fours, derived from a seed (deterministic per transaction). */
export function tokenDigits(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  const digits = (BigInt(`0x${hex}`) % 10n ** 20n).toString().padStart(20, '0');
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** The wire token of a confirm (2.5): bare digits, or the key-change triple for scenario 3. */
export function issueToken(productType: ProductType, profile: Profile, transactionId: number): string | null {
  if (productType === 'AIRTIME') return null;
  const seed = `${productType}:${transactionId}`;
  if (!profile.multiToken) return tokenDigits(seed);
  return [
    `KeyChange Token1: ${tokenDigits(`${seed}:kct1`)}`,
    `KeyChange Token2: ${tokenDigits(`${seed}:kct2`)}`,
    `Credit Token: ${tokenDigits(`${seed}:credit`)}`,
  ].join(' | ');
}
