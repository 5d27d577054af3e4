/**
 * The sandbox's fixed world: credentials, users, wallets and the product catalogue. Values here
 * are what the README documents and what tests and the gateway's embedded mode rely on.
 */
import type { ProductType } from './scenarios';

/** OAuth client, integration user and organisation code accepted by login. */
export const SANDBOX_CREDENTIALS = {
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  username: 'integration',
  password: 'sandbox-pass',
  orgCode: 'SANDBOX',
} as const;

/** A second user who may log in and read, but whose purchase calls get 403 missing_permission. */
export const SANDBOX_READONLY_USER = { username: 'readonly', password: 'readonly-pass' } as const;

/** Wallet ids: four of `integration`, one of `readonly` (404 for `integration`). */
export const SANDBOX_ACCOUNTS = {
  current: 1001,
  commission: 1002,
  topup: 1003,
  managedRetry: 1004,
  otherUsers: 2001,
} as const;

export const ORGANISATION = { code: 'SANDBOX', name: 'Sandbox Operator Ltd' } as const;

export interface SandboxUser {
  id: number;
  username: string;
  password: string;
  fullName: string;
  phoneNumber: string;
  role: string;
  canPurchase: boolean;
}

export const USERS: readonly SandboxUser[] = [
  {
    id: 701,
    username: SANDBOX_CREDENTIALS.username,
    password: SANDBOX_CREDENTIALS.password,
    fullName: 'Integration User',
    phoneNumber: '26770000001',
    role: 'API_INTEGRATION',
    canPurchase: true,
  },
  {
    id: 702,
    username: SANDBOX_READONLY_USER.username,
    password: SANDBOX_READONLY_USER.password,
    fullName: 'Read-only Auditor',
    phoneNumber: '26770000002',
    role: 'READ_ONLY',
    canPurchase: false,
  },
];

export type AccountCategory = 'CURRENT' | 'COMMISSION' | 'TOPUP';

export interface AccountSeed {
  id: number;
  ownerId: number;
  name: string;
  category: AccountCategory;
  rank: number;
  balanceMinor: number;
  /** Section 1.5: the service retries failed transactions itself; `retry` answers retries_disabled. */
  managedRetries: boolean;
}

export const ACCOUNT_SEEDS: readonly AccountSeed[] = [
  {
    id: 1001,
    ownerId: 701,
    name: 'Main wallet',
    category: 'CURRENT',
    rank: 1,
    balanceMinor: 100_000_000,
    managedRetries: false,
  },
  {
    id: 1002,
    ownerId: 701,
    name: 'Commission wallet',
    category: 'COMMISSION',
    rank: 2,
    balanceMinor: 250_000,
    managedRetries: false,
  },
  {
    id: 1003,
    ownerId: 701,
    name: 'Top-up wallet',
    category: 'TOPUP',
    rank: 3,
    balanceMinor: 50_000,
    managedRetries: false,
  },
  {
    id: 1004,
    ownerId: 701,
    name: 'Managed-retry wallet',
    category: 'CURRENT',
    rank: 4,
    balanceMinor: 10_000_000,
    managedRetries: true,
  },
  {
    id: 2001,
    ownerId: 702,
    name: 'Auditor wallet',
    category: 'CURRENT',
    rank: 1,
    balanceMinor: 5_000_000,
    managedRetries: false,
  },
];

export const CURRENCY = 'BWP';

export interface CatalogueEntry {
  product_type: ProductType;
  display_name: string;
  subscriber_id_label: string | null;
  subscriber_id_min_length: number | null;
  subscriber_id_max_length: number | null;
  subscriber_id_pattern: string | null;
  subscriber_id_hint: string | null;
  providers: { code: string; name: string }[];
}

/** `GET /public/v1/vas-products` (2.7), in this order. */
export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    product_type: 'ELECTRICITY',
    display_name: 'Electricity',
    subscriber_id_label: 'Meter number',
    subscriber_id_min_length: 11,
    subscriber_id_max_length: 13,
    subscriber_id_pattern: '^[0-9]{11,13}$',
    subscriber_id_hint: null,
    providers: [{ code: 'BPC', name: 'Botswana Power Corporation' }],
  },
  {
    product_type: 'AIRTIME',
    display_name: 'Airtime',
    subscriber_id_label: 'Mobile number',
    subscriber_id_min_length: 11,
    subscriber_id_max_length: 11,
    subscriber_id_pattern: '^2677[0-9]{7}$',
    subscriber_id_hint: 'Mobile number, e.g. 26771234567',
    providers: [
      { code: 'MASCOM', name: 'Mascom Wireless' },
      { code: 'ORANGE', name: 'Orange Botswana' },
      { code: 'BTC', name: 'Botswana Telecommunications Corporation' },
    ],
  },
  {
    product_type: 'WATER',
    display_name: 'Water',
    subscriber_id_label: 'Account number',
    subscriber_id_min_length: 10,
    subscriber_id_max_length: 10,
    subscriber_id_pattern: '^[0-9]{10}$',
    subscriber_id_hint: 'Water account number: 10 digits, as printed on the WUC bill',
    providers: [{ code: 'WUC', name: 'Water Utilities Corporation' }],
  },
];

/** The operator party object of every envelope. */
export const OPERATOR_PARTY = {
  id: 501,
  full_name: ORGANISATION.name,
  phone_number: '26770000000',
  username: 'sandbox-operator',
  address: 'Plot 1, Main Mall, Gaborone',
  status: 'ACTIVE',
} as const;
