import { createHash } from 'node:crypto';
import * as smpp from 'smpp';
import { encodingOf, splitSmsSegments } from '../../i18n/gsm';
import { componentLogger } from '../../observability/logger';
import { maskMsisdn } from '../../phone';
import { wireTable } from '../../http/wire-table';
import type { DeliveryReport } from '../sender';
import type { OutboundSms, SendOutcome, SmsDriver, SmsSender } from '../sender';

const log = componentLogger('sms-smpp');

export interface SmppConfig {
  host: string;
  port: number;
  systemId: string;
  password: string;
  /** Sender id: alphanumeric (TON 5), a short code (TON 3) or an international number (TON 1). */
  sourceAddr: string;
  enquireLinkMs: number;
  /** How long to wait for submit_sm_resp before answering retry; default 10 s. */
  submitTimeoutMs?: number;
  /** Reconnect backoff: doubles from min to max; defaults 1 s and 30 s. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** Called for each delivery receipt the SMSC sends back. */
  onReceipt?: (receipt: DeliveryReceipt) => void;
  /** Called for each mobile-originated message (a deliver_sm that is not a receipt). */
  onMessage?: (message: { from: string; to: string; text: string }) => void;
}

export interface DeliveryReceipt {
  /** The SMSC's id of the submitted part, as returned in submit_sm_resp. */
  messageId: string;
  /** SMPP receipt state word: DELIVRD, EXPIRED, DELETED, UNDELIV, ACCEPTD, UNKNOWN, REJECTD. */
  state: string;
  delivered: boolean;
  error?: string;
  /** The recipient (E.164 digits). */
  to: string;
}

type Verdict = 'retry' | 'rejected';
type Failure = Exclude<SendOutcome, { status: 'sent' }>;

/**
 * submit_sm_resp command_status → verdict; statuses not listed retry. A bad destination is permanent;
 * throttling, SMSC trouble and ours-to-fix settings (source address, bind state) retry.
 */
export const SUBMIT_STATUS = wireTable<Verdict>({
  0x01: 'rejected', // ESME_RINVMSGLEN
  0x04: 'retry', // ESME_RINVBNDSTS
  0x08: 'retry', // ESME_RSYSERR
  0x0a: 'retry', // ESME_RINVSRCADR
  0x0b: 'rejected', // ESME_RINVDSTADR
  0x14: 'retry', // ESME_RMSGQFUL
  0x45: 'retry', // ESME_RSUBMITFAIL
  0x48: 'retry', // ESME_RINVSRCTON
  0x49: 'retry', // ESME_RINVSRCNPI
  0x50: 'rejected', // ESME_RINVDSTTON
  0x51: 'rejected', // ESME_RINVDSTNPI
  0x58: 'retry', // ESME_RTHROTTLED
  0x64: 'retry', // ESME_RX_T_APPN
  0x66: 'rejected', // ESME_RX_R_APPN
  0xfe: 'retry', // ESME_RDELIVERYFAILURE
  0xff: 'retry', // ESME_RUNKNOWNERR
});

const ERROR_NAMES = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

function statusName(status: number): string {
  return ERROR_NAMES.get(status) ?? `0x${status.toString(16).padStart(2, '0')}`;
}

/** `SMS_DRIVER=smpp`: SMPP_HOST, SMPP_PORT, SMPP_SYSTEM_ID, SMPP_PASSWORD from the config. */
export const smppDriver: SmsDriver<SmppConfig> = {
  settings(sms) {
    if (!sms.smpp) throw new Error('SMS_DRIVER=smpp needs SMPP_HOST, SMPP_SYSTEM_ID and SMPP_PASSWORD');
    return { ...sms.smpp, sourceAddr: sms.senderId ?? 'INFO', enquireLinkMs: 30_000 };
  },
  create: (settings, deps) =>
    new SmppSender({
      ...settings,
      ...(deps.inbound && {
        onMessage: (message) =>
          deps.inbound!.message({
            provider: 'smpp',
            messageId: null,
            ...message,
            receivedAt: new Date().toISOString(),
          }),
        onReceipt: (receipt) => deps.inbound!.delivery(receiptReport(receipt)),
      }),
    }),
};

/** SMPP receipt states that are not final yet. */
const PENDING_STATES = new Set(['SCHEDULED', 'ENROUTE', 'ACCEPTD']);

/** An SMPP delivery receipt as the gateway's delivery report. */
export function receiptReport(receipt: DeliveryReceipt): DeliveryReport {
  return {
    provider: 'smpp',
    providerMessageId: receipt.messageId,
    state: receipt.delivered ? 'delivered' : PENDING_STATES.has(receipt.state) ? 'pending' : 'failed',
    providerStatus: receipt.state,
    failureReason: receipt.error ? `err ${receipt.error}` : null,
  };
}

/** SMPP 3.4 transceiver: one bound session, kept alive with enquire_link and re-bound with backoff. */
export class SmppSender implements SmsSender {
  readonly name = 'smpp';
  private session?: smpp.Session;
  private bound = false;
  private closed = false;
  private failures = 0;
  private lastError?: string;
  private reconnectTimer?: NodeJS.Timeout;
  private enquireTimer?: NodeJS.Timeout;
  private readonly pending = new Set<(outcome: Failure) => void>();

  constructor(private readonly config: SmppConfig) {
    this.connect();
  }

  /** True while bound; sends made when false answer `retry`. */
  get isBound(): boolean {
    return this.bound;
  }

  /** Why the last connection or bind failed, for health checks. */
  get lastFailure(): string | undefined {
    return this.lastError;
  }

  async send(sms: OutboundSms): Promise<SendOutcome> {
    const session = this.session;
    if (!this.bound || !session) {
      return { status: 'retry', reason: `smpp not bound${this.lastError ? ` (${this.lastError})` : ''}` };
    }
    const dataCoding = encodingOf(sms.message) === 'GSM-7' ? 0 : 8;
    const segments = splitSmsSegments(sms.message);
    // The same reference for a message's retries lets phones recombine parts of one attempt only.
    const reference = createHash('sha1').update(sms.id).digest()[0];
    const ids: string[] = [];
    for (const [i, text] of segments.entries()) {
      const concatenated = segments.length > 1;
      const outcome = await this.submit(session, {
        source_addr_ton: sourceTon(this.config.sourceAddr),
        source_addr_npi: sourceTon(this.config.sourceAddr) === 1 ? 1 : 0,
        source_addr: this.config.sourceAddr,
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: sms.to,
        esm_class: concatenated ? 0x40 : 0,
        registered_delivery: 1,
        data_coding: dataCoding,
        short_message: concatenated
          ? { udh: Buffer.from([0x05, 0x00, 0x03, reference, segments.length, i + 1]), message: text }
          : text,
      });
      if (typeof outcome !== 'string') {
        const partial = i > 0 ? ` (after ${i} of ${segments.length} parts were accepted)` : '';
        log.warn('sms not sent', {
          smsId: sms.id,
          to: maskMsisdn(sms.to),
          status: outcome.status,
          part: i + 1,
          partial,
        });
        return { ...outcome, reason: outcome.reason + partial };
      }
      ids.push(outcome);
    }
    log.info('sms sent', { smsId: sms.id, to: maskMsisdn(sms.to), parts: segments.length });
    // The SMSC receipts each part under its own id: every one is linked to the message.
    return { status: 'sent', providerMessageIds: ids };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.enquireTimer);
    const session = this.session;
    if (!session || session.socket.destroyed) return;
    await new Promise<void>((resolve) => {
      // Unbind politely, but never wait more than a second for the SMSC to answer.
      const done = setTimeout(() => session.destroy(), 1000);
      session.socket.once('close', () => {
        clearTimeout(done);
        resolve();
      });
      if (!this.bound || !session.unbind({}, () => session.close())) session.destroy();
    });
  }

  /** submit_sm → the SMSC's message id, or the outcome that stops the send. */
  private submit(session: smpp.Session, params: Record<string, unknown>): Promise<string | Failure> {
    return new Promise((resolve) => {
      const finish = (result: string | Failure) => {
        clearTimeout(timer);
        this.pending.delete(finish);
        resolve(result);
      };
      const timer = setTimeout(
        () => finish({ status: 'retry', reason: 'smpp submit_sm_resp timed out' }),
        this.config.submitTimeoutMs ?? 10_000,
      );
      this.pending.add(finish);
      const written = session.submit_sm(params, (resp) => {
        if (resp.command_status === 0) return finish(resp.message_id ?? '');
        const verdict = SUBMIT_STATUS.get(resp.command_status) ?? 'retry';
        finish({ status: verdict, reason: `smpp submit_sm refused: ${statusName(resp.command_status)}` });
      });
      if (!written) finish({ status: 'retry', reason: 'smpp connection not writable' });
    });
  }

  private connect(): void {
    const session = smpp.connect({ host: this.config.host, port: this.config.port });
    this.session = session;
    session.on('connect', () => {
      session.bind_transceiver({ system_id: this.config.systemId, password: this.config.password }, (pdu) => {
        if (pdu.command_status !== 0) {
          this.lastError = `bind refused: ${statusName(pdu.command_status)}`;
          log.error('smpp bind refused: check system id and password', { status: this.lastError });
          session.destroy();
          return;
        }
        this.bound = true;
        this.failures = 0;
        this.lastError = undefined;
        log.info('smpp bound', { host: this.config.host, port: this.config.port });
        this.keepAlive(session);
      });
    });
    session.on('deliver_sm', (pdu) => this.onDeliver(session, pdu));
    session.on('enquire_link', (pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('error', (err) => {
      this.lastError = err.message;
      log.warn('smpp connection error', { error: err.message });
      session.destroy();
    });
    session.on('close', () => this.onClose(session));
  }

  /** enquire_link every period; an unanswered one means the link is dead: drop it and reconnect. */
  private keepAlive(session: smpp.Session): void {
    let awaiting = false;
    clearInterval(this.enquireTimer);
    this.enquireTimer = setInterval(() => {
      if (awaiting) {
        log.warn('smpp enquire_link unanswered, reconnecting');
        session.destroy();
        return;
      }
      awaiting = true;
      session.enquire_link({}, () => {
        awaiting = false;
      });
    }, this.config.enquireLinkMs);
    this.enquireTimer.unref();
  }

  private onClose(session: smpp.Session): void {
    if (session !== this.session) return;
    this.bound = false;
    clearInterval(this.enquireTimer);
    // Sends waiting for a response will never get one on this connection.
    for (const finish of [...this.pending]) finish({ status: 'retry', reason: 'smpp connection lost' });
    if (this.closed) return;
    const min = this.config.reconnectMinMs ?? 1000;
    const delay = Math.min(this.config.reconnectMaxMs ?? 30_000, min * 2 ** this.failures);
    this.failures += 1;
    log.warn('smpp disconnected, reconnecting', { delayMs: delay, reason: this.lastError });
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private onDeliver(session: smpp.Session, pdu: smpp.PDU): void {
    session.send(pdu.response());
    if (((pdu.esm_class ?? 0) & 0x3c) !== 0x04) {
      const raw = pdu.short_message?.message;
      const text = typeof raw === 'string' ? raw : (raw?.toString('latin1') ?? '');
      log.info('smpp inbound message', { from: maskMsisdn(pdu.source_addr ?? '') });
      this.config.onMessage?.({ from: pdu.source_addr ?? '', to: pdu.destination_addr ?? '', text });
      return;
    }
    const receipt = parseReceipt(pdu);
    log.info('smpp delivery receipt', { ...receipt, to: maskMsisdn(receipt.to) });
    this.config.onReceipt?.(receipt);
  }
}

/** Receipt text `id:… sub:… dlvr:… submit date:… done date:… stat:DELIVRD err:000 text:…`, TLVs preferred. */
export function parseReceipt(pdu: smpp.PDU): DeliveryReceipt {
  const raw = pdu.short_message?.message;
  const text = typeof raw === 'string' ? raw : (raw?.toString('latin1') ?? '');
  const field = (name: string) => new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i').exec(text)?.[1];
  const state = field('stat')?.toUpperCase() ?? stateWord(pdu.message_state);
  const error = field('err');
  return {
    messageId: pdu.receipted_message_id ?? field('id') ?? '',
    state,
    delivered: state === 'DELIVRD',
    ...(error && error !== '000' && { error }),
    to: pdu.source_addr ?? '',
  };
}

const STATE_WORDS = [
  'SCHEDULED',
  'ENROUTE',
  'DELIVRD',
  'EXPIRED',
  'DELETED',
  'UNDELIV',
  'ACCEPTD',
  'UNKNOWN',
  'REJECTD',
];

function stateWord(state: number | undefined): string {
  return (state !== undefined && STATE_WORDS[state]) || 'UNKNOWN';
}

function sourceTon(sourceAddr: string): number {
  if (!/^\d+$/.test(sourceAddr)) return 5; // alphanumeric
  return sourceAddr.length <= 8 ? 3 : 1; // short code : international number
}
