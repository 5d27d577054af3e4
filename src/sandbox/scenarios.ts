/**
 * The sandbox's test identifiers: the staging scenarios of section 8.3 of the
 * purchase-service interface, one test meter each. Tests, the README and the
 * `/sandbox/scenarios` endpoint all read this one table.
 */
export type ScenarioId =
  '1' | '1a' | '1b' | '1c' | '2' | '2a' | '2b' | '2c' | '2d' | '3' | '4' | '5' | '6' | '7';

export type ProductType = 'ELECTRICITY' | 'AIRTIME' | 'WATER';

export interface TestIdentifier {
  identifier: string;
  scenario: ScenarioId;
  productType: ProductType;
  description: string;
}

/** Electricity test meters (the staging meter lock admits only these). */
export const TEST_METERS = {
  active: '01234567890', // 1
  tariffCharge: '01234567891', // 1a
  subAccountSplit: '01234567892', // 1b: amount must exceed 60
  active13: '0123456789012', // 1c: 13-digit form
  blocked: '04100000001', // 2: validate -> meter_blocked
  purchasesBlocked: '04100000002', // 2a
  debtFirst: '04100000003', // 2b
  accountBlock: '04100000004', // 2c
  notFound: '04100000005', // 2d -> meter_not_found
  autoKeyChange: '04200000001', // 3: three tokens, amount above 1000
  fixedCharge: '04200000002', // 4 (amount <= 1000 -> amount_below_minimum) and 5 (amount > 1000 -> success)
  delayed: '04300000001', // 6: answers after SANDBOX_DELAY_MS, completes on the server regardless
  maxVend: '04400000001', // 7: amount > 100000 -> amount_above_maximum
} as const;

/** Water test accounts (same lock as meters). */
export const TEST_WATER_ACCOUNTS = {
  active: '2000123456',
} as const;

/** Airtime needs no test list: any valid Botswana mobile number (E.164 digits, 267 7xxxxxxx) succeeds. */
export const TEST_AIRTIME_NUMBER = '26771234567';

/** One row of `GET /sandbox/scenarios`: a test identifier and the 8.3 scenario it reproduces. */
export const SCENARIOS: readonly TestIdentifier[] = [
  {
    identifier: TEST_METERS.active,
    scenario: '1',
    productType: 'ELECTRICITY',
    description: 'Active 11-digit meter: successful token generation at any amount > 0',
  },
  {
    identifier: TEST_METERS.tariffCharge,
    scenario: '1a',
    productType: 'ELECTRICITY',
    description: 'Active meter with tariff charge (5% in metadata.charge): success, any amount > 0',
  },
  {
    identifier: TEST_METERS.subAccountSplit,
    scenario: '1b',
    productType: 'ELECTRICITY',
    description:
      'Tariff charge and sub-account split: success, amount must exceed 60 (else amount_below_minimum)',
  },
  {
    identifier: TEST_METERS.active13,
    scenario: '1c',
    productType: 'ELECTRICITY',
    description: 'Active 13-digit meter: success; 11- and 13-digit input are both accepted',
  },
  {
    identifier: TEST_METERS.blocked,
    scenario: '2',
    productType: 'ELECTRICITY',
    description: 'Blocked customer: validate (and confirm) answer 422 meter_blocked',
  },
  {
    identifier: TEST_METERS.purchasesBlocked,
    scenario: '2a',
    productType: 'ELECTRICITY',
    description: 'Customer purchases blocked: 422 meter_blocked, any amount',
  },
  {
    identifier: TEST_METERS.debtFirst,
    scenario: '2b',
    productType: 'ELECTRICITY',
    description:
      'Purchase only allowed once the debt is paid: 422 provider_error (not retryable), any amount',
  },
  {
    identifier: TEST_METERS.accountBlock,
    scenario: '2c',
    productType: 'ELECTRICITY',
    description: 'Account-level transaction block: 422 provider_error (not retryable), any amount',
  },
  {
    identifier: TEST_METERS.notFound,
    scenario: '2d',
    productType: 'ELECTRICITY',
    description: 'Meter not found / disconnected: 404 meter_not_found, any amount',
  },
  {
    identifier: TEST_METERS.autoKeyChange,
    scenario: '3',
    productType: 'ELECTRICITY',
    description:
      'Auto key change (fixed charge 1000): three tokens "KeyChange Token1: … | KeyChange Token2: … | Credit Token: …"; amount must exceed 1000',
  },
  {
    identifier: TEST_METERS.fixedCharge,
    scenario: '4',
    productType: 'ELECTRICITY',
    description: 'Fixed-charge meter (fixed charge 1000), amount at or below 1000: 400 amount_below_minimum',
  },
  {
    identifier: TEST_METERS.fixedCharge,
    scenario: '5',
    productType: 'ELECTRICITY',
    description: 'Same fixed-charge meter, amount above 1000: successful vend (metadata.charge BWP 1000.00)',
  },
  {
    identifier: TEST_METERS.delayed,
    scenario: '6',
    productType: 'ELECTRICITY',
    description:
      'Delayed response: confirm answers after SANDBOX_DELAY_MS (default 95 s) and completes on the server even if the client hung up; use retry',
  },
  {
    identifier: TEST_METERS.maxVend,
    scenario: '7',
    productType: 'ELECTRICITY',
    description: 'Maximum vend: amount above 100000 gives 400 amount_above_maximum',
  },
  {
    identifier: TEST_WATER_ACCOUNTS.active,
    scenario: '1',
    productType: 'WATER',
    description: 'Active water account: success at any amount > 0, litres on validate, a token on confirm',
  },
  {
    identifier: TEST_AIRTIME_NUMBER,
    scenario: '1',
    productType: 'AIRTIME',
    description: 'Any Botswana mobile number (2677xxxxxxx) succeeds; no token, no units',
  },
];
