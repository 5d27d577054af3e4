/**
 * The hop contract: the aggregator-neutral shapes of USSD traffic. It belongs to the session
 * (the engine answers hops); channel adapters translate their wire formats to and from it.
 */

/** One screen request ("hop") from an aggregator, normalised. */
export interface UssdHop {
  /** Adapter name (`africastalking`); with `sessionId` it identifies the dialogue. */
  aggregator: string;
  sessionId: string;
  /** E.164 digits of the caller, no `+`. */
  msisdn: string;
  serviceCode: string;
  /**
   * What the subscriber typed. `cumulative`: every input so far joined by `*` (Africa's
   * Talking), the engine derives the new input by prefix. `latest`: only this hop's input.
   */
  text: { kind: 'cumulative' | 'latest'; value: string };
  /** The aggregator says this is the first hop of the dialogue (when it says so at all). */
  isNew: boolean;
  /**
   * What was dialled after the service code (`1*01234567890*100` of `*384*1*01234567890*100#`),
   * for formats that pass it on the first hop (Africa's Talking's first `text`, Hubtel's
   * `Message` on Initiation, …: src/ussd/README.md). A session's first hop with it
   * starts the dialogue with it (`DialogueInput.dialled`): the machine decides what it means.
   */
  dialled?: string;
  /**
   * The aggregator says this hop re-sends the last one (Comviva Flares hits the URL again with
   * an empty `input`): answered with the stored reply, never read as an input.
   */
  repeat?: boolean;
  /** MCC+MNC or operator name, when sent. */
  network?: string;
  /**
   * Optional per-hop id from the aggregator (a sequence number). When set, a hop with the
   * same key as the last one is a re-delivery. Without it, cumulative text is the key.
   */
  requestKey?: string;
  /** The parsed wire request, for logs and debugging (never logged in full). */
  raw: unknown;
  /** The aggregator's screen limit, when it is not the gateway's default (set by the router). */
  screenLimit?: number;
}

/** What the engine answers: the screen text and whether the dialogue ends. */
export interface UssdReply {
  text: string;
  end: boolean;
  /** The screen waits for an option number (not free text): formats that can say so show a number field. */
  choice?: boolean;
}

/** End-of-session notification from an aggregator, normalised. */
export interface UssdSessionEnd {
  aggregator: string;
  sessionId: string;
  /** E.164 digits, no `+`; null when the notification names no number (Infobip's end). */
  msisdn: string | null;
  /** `completed`: ended normally; `incomplete`: dropped or timed out mid-way; `failed`: aggregator-side failure. */
  status: 'completed' | 'incomplete' | 'failed';
}
