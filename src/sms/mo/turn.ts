import type { PinVerdict } from '../inbound/types';
import type { MoTexts } from './texts';

/** What happened to one inbound message (logged, and what tests observe). */
export type ConversationOutcome =
  'ignored-sender' | 'rate-limited' | 'quoted' | 'bought' | 'already-bought' | 'refused' | 'answered';

/** One message being answered: who, in which language, its key, and how to answer it. */
export class Turn {
  constructor(
    private readonly texts: MoTexts,
    /** Queues the reply (at most one per message; the sender's reply cap applies). */
    private readonly send: (turn: Turn, message: string) => Promise<void>,
    readonly msisdn: string,
    public lang: string,
    readonly key: string,
    /** The intake's verdict on the PIN the message carried (agents), if any. */
    readonly pin?: PinVerdict,
  ) {}

  say(key: string, params: Record<string, string | number> = {}): Promise<void> {
    return this.sayText(this.texts.t(this.lang, key, params));
  }

  sayText(message: string): Promise<void> {
    return this.send(this, message);
  }

  /** A refusal with the grammar after it. */
  sayProblem(reason: string): Promise<void> {
    return this.say('sms.mo.helpWithReason', { reason, help: this.texts.help(this.lang) });
  }
}
