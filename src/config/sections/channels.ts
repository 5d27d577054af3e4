import { z } from 'zod';
import { SMS_DRIVERS } from '../../messaging/settings';
import { bool, doc, FLAGS, int, optionalString } from '../variables';

/**
 * The channels: USSD callbacks and screens, outbound SMS drivers and retries, buying by SMS.
 * Each variable: its parse, its default and its line in docs/configuration.md (`doc`);
 * ../schema.ts puts the sections in order.
 */

export const ussd = {
  // Per-aggregator overrides (USSD_SCREEN_LIMIT_<NAME>, …) are read by the assembly (index.ts).
  USSD_CALLBACK_SECRET: doc(
    optionalString,
    'shared secret (at least 16 characters) required on USSD callbacks as header `X-Callback-Key` or `?key=`',
  ),
  USSD_ALLOWED_IPS: doc(
    optionalString,
    'comma-separated allow-list of USSD callers: addresses or CIDR ranges, IPv4 or IPv6',
  ),
  TRUST_PROXY: doc(
    optionalString,
    'behind load balancers: a hop count, their addresses/CIDR ranges, or `loopback`/`linklocal`/`uniquelocal` (`true` is refused: anyone could forge X-Forwarded-For)',
  ),
  USSD_GENERIC_MAPPING: doc(
    optionalString,
    "the generic JSON aggregator's field mapping (src/ussd/README.md); `/ussd/generic` exists only with it",
  ),
  USSD_COMVIVA_USERID: doc(optionalString, 'the `userid` Comviva sends; checked when set'),
  USSD_COMVIVA_PASSWORD: doc(optionalString, 'the `password` Comviva sends; checked when set'),
  USSD_COMVIVA_SERVICE_CODE: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^\*?\d{1,10}(\*\d{1,10}){0,3}#?$/, 'must be a USSD code such as *384# or *384*33#')
        .optional(),
    ),
    'the code Comviva dials reach the service on (`*384*33#` on a shared code): what its first `input` holds after it is a one-dial shortcut',
    'unset: the first group of digits',
  ),
  USSD_SCREEN_LIMIT: doc(
    int(182, 60, 1000),
    'characters per screen (GSM-7 septets; UCS-2 counted as phones do)',
  ),
  USSD_HOP_BUDGET_MS: doc(int(8000, 500, 30000), "time to answer one hop (below the aggregator's timeout)"),
  USSD_SESSION_TTL_S: doc(int(300, 30, 86400), 'lifetime of a dialogue in the store'),
  USSD_RESUME_WINDOW_S: doc(
    int(120, 0, 3600),
    'a dropped dialogue can be resumed by the same number within this window',
  ),
  USSD_MACHINE_START: doc(
    z.string().regex(/^\d+$/, 'a machine version number').optional(),
    'the USSD machine version new dialogues start on, among those the build serves (machines/README.md, Versions): set only for the expand step of a machine change; this build serves 7 alone',
    '`7`',
  ),
  USSD_ASK_TOKEN_RECIPIENT: doc(
    bool(true),
    'electricity and water ask "Send the token to: 1 This phone 2 Another number" after the meter, so a subscriber can buy a token for another phone (`false`: the question is skipped and the token goes to the caller; a gift by SMS works either way)',
  ),
};

export const sms = {
  SMS_DRIVER: doc(
    z.enum(SMS_DRIVERS).optional().default('outbox'),
    `outbound SMS driver: ${SMS_DRIVERS.map((d) => `\`${d}\``).join(', ')}`,
  ),
  SMS_SENDER_ID: doc(optionalString, 'sender id or short code'),
  AT_USERNAME: doc(optionalString, "Africa's Talking username (required with `SMS_DRIVER=africastalking`)"),
  AT_API_KEY: doc(optionalString, "Africa's Talking API key (required with `SMS_DRIVER=africastalking`)"),
  AT_SMS_URL: doc(
    optionalString.pipe(z.url().optional()).transform((v) => v ?? 'https://api.africastalking.com'),
    "Africa's Talking base URL",
  ),
  SMPP_HOST: doc(optionalString, 'SMPP server (required with `SMS_DRIVER=smpp`)'),
  SMPP_PORT: doc(int(2775, 1, 65535), 'SMPP port'),
  SMPP_SYSTEM_ID: doc(optionalString, 'SMPP system id (required with `SMS_DRIVER=smpp`)'),
  SMPP_PASSWORD: doc(optionalString, 'SMPP password (required with `SMS_DRIVER=smpp`)'),
  SMS_HTTP_URL: doc(
    optionalString.pipe(z.url().optional()),
    'JSON webhook of the `http` driver (required with it)',
  ),
  SMS_HTTP_TOKEN: doc(optionalString, 'bearer token sent to the webhook'),
  // Outcome SMS retries: a token must survive a provider outage (hours in all).
  SMS_RETRY_ATTEMPTS: doc(int(60, 1, 10000), 'attempts of an outcome SMS before it is given up'),
  SMS_RETRY_BASE_MS: doc(int(5000, 1, 3600000), 'first retry delay (doubling)'),
  SMS_RETRY_MAX_DELAY_MS: doc(int(600000, 1, 86400000), 'longest retry delay'),
  SMS_RETRY_AFTER_MAX_MS: doc(int(3600000, 0, 86400000), 'longest provider `Retry-After` honoured'),
};

export const smsMo = {
  SMS_QUOTE_TTL_S: doc(int(300, 30, 3600), 'how long an SMS quote can be bought with `YES <code>`'),
  SMS_RATE_PER_MIN: doc(int(10, 1, 1000), 'inbound SMS handled per sender per minute'),
  SMS_REPLIES_PER_MIN: doc(int(10, 1, 1000), 'replies sent per sender per minute'),
  SMS_CALLBACK_SECRET: doc(
    optionalString,
    'shared secret of the inbound SMS and delivery report routes',
    '`USSD_CALLBACK_SECRET`',
  ),
  SMS_ALLOWED_IPS: doc(
    optionalString,
    'allow-list of the inbound SMS and delivery report routes',
    '`USSD_ALLOWED_IPS`',
  ),
  SMS_YES_WITHOUT_CODE: doc(
    z.enum(FLAGS).optional(),
    'a bare `YES` buys the pending quote; off, only `YES <code>` buys',
    '`false` in production, else `true`',
  ),
};
