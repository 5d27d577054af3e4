import type { AgentRegistry, PinChange, PinCheck } from '../../../agents';
import { normaliseMsisdn, type CountryCode } from '../../../phone';
import { parseSmsCommand, REDACTED_PIN } from '../commands/grammar';
import type { Keywords } from '../commands/keywords';
import type { InboundSms, PinVerdict } from '../inbound/types';

/**
 * The one place an agent's PIN is ever in clear: the intake, before a message is queued. For
 * `YES <code> <PIN>`, `BAL <PIN>`, `SALES <PIN>` and `PIN <old> <new>` the PIN is checked here
 * (counting towards the lockout, like a USSD attempt), the change made, and the message goes on
 * with `XXXX` in place of each PIN and the verdict beside it. Nothing downstream — the job in
 * Redis, the conversation, the logs — ever sees a PIN.
 */
export class PinGate {
  constructor(
    private readonly registry: Pick<AgentRegistry, 'get' | 'verifyPin' | 'changePin'>,
    private readonly keywords: Keywords,
    private readonly region: string,
  ) {}

  async pass(sms: InboundSms): Promise<InboundSms> {
    const parsed = parseSmsCommand(sms.text, this.keywords);
    if (!parsed.ok) return sms;
    const command = parsed.command;
    const keyword = sms.text.trim().split(/[\s*#]+/)[0] ?? '';
    const sender = normaliseMsisdn(sms.from, this.region as CountryCode);
    const msisdn = sender.ok ? sender.e164 : null;
    switch (command.kind) {
      case 'yes': {
        const pin = command.rest[0];
        // From an agent, a lone number may be the PIN with the code forgotten: it is dropped
        // (one quote is pending per number, so the code is not needed) and the agent is asked
        // for `YES <code> <PIN>`.
        if (pin === undefined && command.code !== null && msisdn && (await this.registry.get(msisdn)))
          return { ...sms, text: keyword };
        if (pin === undefined || command.code === null) return sms;
        return {
          ...sms,
          text: `${keyword} ${command.code} ${REDACTED_PIN}`,
          pin: await this.check(msisdn, pin),
        };
      }
      case 'balance':
      case 'sales':
        if (command.pin === null) return sms;
        return { ...sms, text: `${keyword} ${REDACTED_PIN}`, pin: await this.check(msisdn, command.pin) };
      case 'pinChange':
        return {
          ...sms,
          text: `${keyword} ${REDACTED_PIN} ${REDACTED_PIN}`,
          pin: msisdn
            ? changeVerdict(await this.registry.changePin(msisdn, command.oldPin, command.newPin))
            : { status: 'not_agent' },
        };
      default:
        return sms;
    }
  }

  private async check(msisdn: string | null, pin: string): Promise<PinVerdict> {
    if (pin === REDACTED_PIN) return { status: 'wrong', attemptsLeft: 0 };
    return msisdn ? checkVerdict(await this.registry.verifyPin(msisdn, pin)) : { status: 'not_agent' };
  }
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
