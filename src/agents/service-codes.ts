/**
 * AGENT_SERVICE_CODES: the USSD codes that serve the agent menu. Unset, a registered agent gets
 * it on every code; set, only on those (on the others an agent's number is a subscriber like
 * any other, buying for itself). Aggregators write a code differently (`*384*9#`, `384*9`), so
 * codes are compared without the leading `*` and the trailing `#`.
 */

/** `*384*9#`, `*384*9` and `384*9` → `384*9`. */
export function serviceCodeKey(code: string): string {
  return code.trim().replace(/^\*+/, '').replace(/#+$/, '');
}

/** Whether a dial on `serviceCode` may reach the agent menu (`codes` already keyed; empty: every code). */
export function agentsServedOn(codes: readonly string[], serviceCode: string): boolean {
  return codes.length === 0 || codes.includes(serviceCodeKey(serviceCode));
}
