import { z } from 'zod';
import { MIN_PIN_SECRET_LENGTH } from '../../agents/pin-secret';
import { DEFAULT_AGENT_LIMITS } from '../../agents/settings';
import { DEFAULT_AMOUNTS, DEFAULT_DAILY } from '../../spend/rules';
import { decimal, doc, int, optionalString, units } from '../variables';

/**
 * What one sale may be: a number's spending rules, and the field agents' limits, commission,
 * dealers and PINs.
 * Each variable: its parse, its default and its line in docs/configuration.md (`doc`);
 * ../schema.ts puts the sections in order.
 */

export const spend = {
  SPEND_LIMITS: doc(
    optionalString,
    'amount range of one sale per product (currency units), checked on the amount screen and before an SMS quote',
    `\`${Object.entries(DEFAULT_AMOUNTS)
      .map(([product, r]) => `${product}=${decimal(r.minMinor)}-${decimal(r.maxMinor)}`)
      .join(',')}\``,
  ),
  SPEND_DAY_MAX_VALUE: doc(
    optionalString,
    'what one number may buy per local day (`TZ`), over USSD and SMS together',
    units(DEFAULT_DAILY.maxValueMinor),
  ),
  SPEND_DAY_MAX_COUNT: doc(
    int(DEFAULT_DAILY.maxCount, 1, 100000),
    'purchases one number may make per local day',
  ),
};

export const agents = {
  AGENT_MAX_SALE: doc(
    optionalString,
    "an agent's largest sale, unless the agent's own limit says",
    units(DEFAULT_AGENT_LIMITS.maxSaleMinor),
  ),
  AGENT_MAX_DAY_VALUE: doc(
    optionalString,
    'what an agent may sell per local day, unless its own limit says',
    units(DEFAULT_AGENT_LIMITS.maxDayValueMinor),
  ),
  AGENT_MAX_DAY_COUNT: doc(
    int(DEFAULT_AGENT_LIMITS.maxDayCount, 1, 1_000_000),
    'sales an agent may make per local day, unless its own limit says',
  ),
  AGENT_SERVICE_CODES: doc(
    optionalString,
    "USSD codes that serve the agent menu (`*384*9#,*385#`); on others an agent's number gets the subscriber menu",
    'unset: every code',
  ),
  AGENT_CURRENCY: doc(
    z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as BWP')
      .optional()
      .default('BWP'),
    "the floats' currency",
  ),
  AGENT_COMMISSION: doc(
    optionalString,
    "commission per sale and product: `ELECTRICITY:2%,AIRTIME:3%,WATER:1%`, a fixed `ELECTRICITY:BWP 1.00`, or `service:50%` (a share of the service's commission); an agent's own policy overrides it",
    'unset: no commission',
  ),
  AGENT_DEALER_SHARE: doc(
    optionalString,
    "a dealer's share of its retailers' commission (`20%`); a dealer's own share overrides it",
    '0%',
  ),
  DEALER_REGISTRATION: doc(
    z.enum(['approve', 'direct']).optional().default('approve'),
    'a retailer a dealer adds by USSD: `approve` waits for an operator (`agent registrations`, `/admin/agents/registrations`), `direct` registers it at once under the dealer',
  ),
  AGENT_PIN_SECRET: doc(
    optionalString.pipe(
      z
        .string()
        .min(MIN_PIN_SECRET_LENGTH, `must be at least ${MIN_PIN_SECRET_LENGTH} characters`)
        .optional(),
    ),
    "server secret every agent PIN hash is peppered with (HMAC-SHA256 before scrypt): without it the agents' rows cannot be brute-forced; required in production, and changing it invalidates every PIN (reset them)",
    'unset: a random key made at first start in `<DATA_DIR>/secrets/agent-pin.key` (in memory for `memory://`)',
  ),
  AGENT_SUMMARY_TIME: doc(
    optionalString,
    "local time (`TZ`) each agent with activity that day gets the day's summary SMS (`19:00`)",
    'unset: no summary SMS (SUMMARY <PIN> still answers)',
  ),
};
