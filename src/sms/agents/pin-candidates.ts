import { REDACTED_PIN, type SmsCommand } from '../commands/grammar';

/**
 * Which numbers in an agent's message could be its PIN, and the text with them masked. Pure.
 *
 * A candidate is a run of 4 to 6 digits (of any script: `４１８５２９` is read as a PIN too). It
 * is kept only where the command needs it and a PIN cannot be:
 * - the amount of a well-formed purchase or sale (`SELL ELEC … 1000 …`);
 * - a group of a meter or account number longer than any PIN (`0412 345 6789`);
 * - a quote code that is one of the sender's quotes (pending or recently bought).
 * Everything else is masked: every candidate of a message the grammar refuses, and in a
 * well-formed one a number where a PIN was typed by mistake (`NO <PIN>`, `TOKEN <PIN>`, `HELP
 * <PIN>`, a 4–6 digit "phone number", a short identifier).
 */

const DIGIT_RUN = /\p{Nd}+/gu;
const PIN_MIN = 4;
const PIN_MAX = 6;

/** True when `text` has a run of digits as long as a PIN (nothing to mask otherwise). */
export function hasPinCandidate(text: string): boolean {
  for (const run of text.match(DIGIT_RUN) ?? []) if (isCandidate(run)) return true;
  return false;
}

/**
 * `text` with every PIN candidate the command does not need replaced by `XXXX`. `command` is
 * the grammar's reading of the text (null: refused); `codes` the sender's quote codes.
 */
export function maskPinCandidates(
  text: string,
  command: SmsCommand | null,
  codes: readonly string[],
): string {
  const needed = neededBy(command, codes);
  return text.replace(DIGIT_RUN, (run) =>
    isCandidate(run) && !needed(run.normalize('NFKC')) ? REDACTED_PIN : run,
  );
}

function isCandidate(run: string): boolean {
  const length = [...run].length;
  return length >= PIN_MIN && length <= PIN_MAX;
}

function neededBy(command: SmsCommand | null, codes: readonly string[]): (digits: string) => boolean {
  const inIdentifier = (identifier: string | null, digits: string) =>
    identifier !== null && identifier.length > PIN_MAX && identifier.includes(digits);
  switch (command?.kind) {
    case 'buy':
    case 'sell': {
      const whole = String(Math.floor(command.amountMinor / 100));
      const identifier = 'identifier' in command ? command.identifier : null;
      return (digits) => digits === whole || inIdentifier(identifier, digits);
    }
    case 'token':
      return (digits) => inIdentifier(command.identifier, digits);
    case 'yes':
    case 'no':
      return (digits) => digits === command.code && codes.includes(digits);
    default:
      return () => false;
  }
}
