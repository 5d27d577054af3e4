/**
 * The sandbox's test payers: what each listed number does with a payment prompt. One table,
 * read by both wire formats, so a number behaves the same over Daraja and MoMo.
 */

export const BEHAVIOURS = [
  'approve',
  'decline',
  'insufficient_funds',
  'no_answer',
  'callback_lost',
  'duplicate_callback',
  'late_success',
  'manual',
] as const;

export type Behaviour = (typeof BEHAVIOURS)[number];

export interface Payer {
  msisdn: string;
  behaviour: Behaviour;
  description: string;
}

/** Listed numbers (Botswana mobile range 75 9xx xxx, used by no other test). */
export const TEST_PAYERS: readonly Payer[] = [
  { msisdn: '26775900001', behaviour: 'approve', description: 'Approves the prompt with the PIN: paid.' },
  { msisdn: '26775900002', behaviour: 'decline', description: 'Cancels the prompt: not paid (declined).' },
  {
    msisdn: '26775900003',
    behaviour: 'insufficient_funds',
    description: 'Approves, but the wallet is short: not paid (insufficient funds).',
  },
  {
    msisdn: '26775900004',
    behaviour: 'no_answer',
    description: 'Never answers: the prompt expires, not paid (expired).',
  },
  {
    msisdn: '26775900005',
    behaviour: 'callback_lost',
    description: 'Pays, but no callback is ever sent: only the status query finds it.',
  },
  {
    msisdn: '26775900006',
    behaviour: 'duplicate_callback',
    description: 'Pays; the same callback is delivered twice.',
  },
  {
    msisdn: '26775900007',
    behaviour: 'late_success',
    description:
      "Pays after the gateway's deadline (lateSuccessDelayMs): pending until then, then a success callback.",
  },
  {
    msisdn: '26775900008',
    behaviour: 'manual',
    description:
      'Waits for POST /sandbox/prompts/:id/approve or /decline (the simulator); expires unanswered.',
  },
];

/** Whether a number is one of the scripted test payers. */
export function isTestPayer(msisdn: string): boolean {
  return TEST_PAYERS.some((p) => p.msisdn === msisdn);
}

/**
 * The behaviour of a number: its row; else `manual` when it was switched to manual answers
 * (`POST /sandbox/payers/manual`: the simulator's phones), else `unlisted` (approve by default).
 */
export function behaviourOf(
  msisdn: string,
  unlisted: 'approve' | 'manual',
  manual: ReadonlySet<string> = new Set(),
): Behaviour {
  return (
    TEST_PAYERS.find((p) => p.msisdn === msisdn)?.behaviour ?? (manual.has(msisdn) ? 'manual' : unlisted)
  );
}
