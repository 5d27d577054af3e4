import { z } from 'zod';
import { production, purchaseService, server } from './sections/gateway';
import { lifecycle, stores } from './sections/records';
import { sms, smsMo, ussd } from './sections/channels';
import { payments } from './sections/payments';
import { agents, spend } from './sections/sales';
import { operators } from './sections/operators';
import { reconciliation } from './sections/reconciliation';

export { variableDocs, type VariableDoc } from './variables';

/**
 * The environment the gateway reads: every variable, its parse, its default and one line on
 * what it does, grouped by section (one module per domain group under sections/).
 * docs/configuration.md is generated from this file (`npm run docs:config`; a test fails while
 * it is stale). To add a variable: one `doc(...)` line in its section (sections/*.ts), then
 * `npm run docs:config`.
 */

/** The sections of the reference, in order; every variable is in exactly one. */
export const SECTIONS = {
  Server: server,
  'Purchase service': purchaseService,
  'Stores and records': stores,
  'Production refusals': production,
  USSD: ussd,
  'Purchase lifecycle': lifecycle,
  Payments: payments,
  'Outbound SMS': sms,
  'Buying by SMS': smsMo,
  'Spending rules': spend,
  'Field agents': agents,
  'Operators and customer care': operators,
  Reconciliation: reconciliation,
};

export const EnvSchema = z.object({
  ...server,
  ...purchaseService,
  ...stores,
  ...production,
  ...ussd,
  ...lifecycle,
  ...payments,
  ...sms,
  ...smsMo,
  ...spend,
  ...agents,
  ...operators,
  ...reconciliation,
});

export type Env = z.infer<typeof EnvSchema>;

/** The environment parsed, or the first problem as one line. */
export function parseEnv(source: NodeJS.ProcessEnv): { ok: true; env: Env } | { ok: false; problem: string } {
  const parsed = EnvSchema.safeParse(source);
  if (parsed.success) return { ok: true, env: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, problem: `${issue.path.join('.')}: ${issue.message}` };
}
