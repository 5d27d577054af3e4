import type { AgentPins, AgentRegistry, PinChange, PinCheck } from '../../agents';
import { normaliseMsisdn, type CountryCode } from '../../phone';
import { parseSmsCommand, REDACTED_PIN } from '../commands/grammar';
import type { Keywords } from '../commands/keywords';
import type { InboundSms, PinVerdict, ScreenedSms } from '../inbound/types';
import type { SmsMoStore } from '../mo/store';
import { hasPinCandidate, maskPinCandidates } from './pin-candidates';

/**
 * The one place an agent's PIN is ever in clear: the intake, before a message is de-duplicated
 * or queued. `screen` takes the PINs out: for `YES <code> <PIN>` (the pending quote's code),
 * `BAL <PIN>`, `SALES <PIN>`, `PIN <old> <new>` and the network's commands (`TRANSFER`, `AGENTS`,
 * `DEPOSIT`, `TOPUP`, `SUMMARY`, `DISABLE`, `ENABLE`: the PIN last) the text carries `XXXX` for each PIN, and
 * `checked()` then checks it (counting towards the lockout, like a USSD attempt) or makes the
 * change. From an agent's number, every other run of digits that could be the PIN is masked too
 * (see pin-candidates.ts), whatever the grammar makes of the message. Nothing downstream — the
 * duplicate marker, the job in Redis, the conversation, the logs — ever sees a PIN.
 */
export class PinGate {
  constructor(
    private readonly registry: Pick<AgentRegistry, 'get'>,
    private readonly pins: Pick<AgentPins, 'verifyPin' | 'changePin'>,
    private readonly keywords: Keywords,
    private readonly region: string,
    private readonly quotes: Pick<SmsMoStore, 'quoteCodes'>,
  ) {}

  async screen(sms: InboundSms): Promise<ScreenedSms> {
    const parsed = parseSmsCommand(sms.text, this.keywords);
    const keyword = sms.text.trim().split(/[\s*#]+/)[0] ?? '';
    const sender = normaliseMsisdn(sms.from, this.region as CountryCode);
    const msisdn = sender.ok ? sender.e164 : null;
    const isAgent = async () => msisdn !== null && (await this.registry.get(msisdn)) !== null;
    const command = parsed.ok ? parsed.command : null;
    switch (command?.kind) {
      case 'balance':
      case 'sales': {
        const pin = command.pin;
        if (pin === null) break;
        return checking({ ...sms, text: `${keyword} ${REDACTED_PIN}` }, () => this.check(msisdn, pin));
      }
      case 'transfer':
      case 'network':
      case 'deposit':
      case 'topup':
      case 'summary':
      case 'supervise': {
        // The PIN is the last word: the rest is kept as typed (a number, an amount, a reference).
        const pin = command.pin;
        const words = sms.text.split(/[\s*#]+/).filter((word) => word !== '');
        const text = [...words.slice(0, -1), REDACTED_PIN].join(' ');
        return checking({ ...sms, text }, () => this.check(msisdn, pin));
      }
      case 'pinChange':
        return checking({ ...sms, text: `${keyword} ${REDACTED_PIN} ${REDACTED_PIN}` }, async () =>
          msisdn
            ? changeVerdict(await this.pins.changePin(msisdn, command.oldPin, command.newPin))
            : { status: 'not_agent' },
        );
      case 'yes': {
        const { code, rest } = command;
        if (code === null) break;
        if (rest.length === 0) {
          // From an agent, a lone number may be the PIN with the code forgotten: it is dropped
          // (one quote is pending per number, so the code is not needed) and the agent is asked
          // for `YES <code> <PIN>`.
          if (await isAgent()) return kept({ ...sms, text: keyword });
          break;
        }
        const codes = msisdn ? await this.quotes.quoteCodes(msisdn) : { pending: null, bought: [] };
        // Only after the pending quote's code is a word the PIN that sells it. Anything else is
        // not checked: a swapped `YES <PIN> <code>` never counts the code as a wrong PIN.
        if (code === codes.pending) {
          const pin = rest[0];
          return checking({ ...sms, text: `${keyword} ${code} ${REDACTED_PIN}` }, () =>
            this.check(msisdn, pin),
          );
        }
        const known = codes.bought.includes(code) || !(await isAgent());
        return kept({ ...sms, text: `${keyword} ${known ? code : REDACTED_PIN} ${REDACTED_PIN}` });
      }
      default:
        break;
    }
    if (!hasPinCandidate(sms.text) || !(await isAgent())) return kept(sms);
    const codes =
      msisdn && (command?.kind === 'yes' || command?.kind === 'no') && command.code !== null
        ? await this.quotes.quoteCodes(msisdn)
        : { pending: null, bought: [] };
    const known = [...(codes.pending === null ? [] : [codes.pending]), ...codes.bought];
    const text = maskPinCandidates(sms.text, command, known);
    if (text === sms.text) return kept(sms);
    // Refused by the grammar: it is answered for what was typed, not for the masked text.
    const refused = parsed.ok ? {} : { refused: { problem: parsed.problem, language: parsed.language } };
    return kept({ ...sms, text, ...refused });
  }

  private async check(msisdn: string | null, pin: string): Promise<PinVerdict> {
    if (pin === REDACTED_PIN) return { status: 'wrong', attemptsLeft: 0 };
    return msisdn ? checkVerdict(await this.pins.verifyPin(msisdn, pin)) : { status: 'not_agent' };
  }
}

/** A message with nothing to check. */
function kept(sms: InboundSms): ScreenedSms {
  return { sms, checked: async () => sms };
}

/** A message whose PIN `check` checks once it is known to be new (never for a re-delivery). */
function checking(sms: InboundSms, check: () => Promise<PinVerdict>): ScreenedSms {
  return { sms, checked: async () => ({ ...sms, pin: await check() }) };
}

function checkVerdict(check: PinCheck): PinVerdict {
  switch (check.status) {
    case 'ok':
      return { status: 'ok', mustChangePin: check.mustChangePin };
    case 'wrong':
      return { status: 'wrong', attemptsLeft: check.attemptsLeft };
    case 'locked':
      return { status: 'locked', until: check.until.toISOString() };
    case 'disabled':
      return { status: 'disabled' };
    case 'not_agent':
      return { status: 'not_agent' };
  }
}

function changeVerdict(change: PinChange): PinVerdict {
  switch (change.status) {
    case 'changed':
      return { status: 'changed' };
    case 'invalid':
      return { status: 'invalid', problem: change.problem };
    case 'stale':
      return { status: 'wrong', attemptsLeft: 0 };
    default:
      return checkVerdict(change);
  }
}
