/** The part of the untyped `smpp` package (0.5) that the SMPP driver and its test use. */
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import { Server as NetServer, Socket } from 'node:net';

  /** Decoded `short_message`: text plus the user data header's information elements, when present. */
  export interface ShortMessage {
    message: string | Buffer;
    udh?: Buffer[];
  }

  export interface PDU {
    command: string;
    command_status: number;
    sequence_number: number;
    system_id?: string;
    password?: string;
    source_addr?: string;
    destination_addr?: string;
    esm_class?: number;
    data_coding?: number;
    registered_delivery?: number;
    message_id?: string;
    receipted_message_id?: string;
    message_state?: number;
    short_message?: ShortMessage;
    response(options?: Record<string, unknown>): PDU;
    isResponse(): boolean;
  }

  type Params = Record<string, unknown>;
  type ResponseCallback = (pdu: PDU) => void;

  export class Session extends EventEmitter {
    socket: Socket;
    send(pdu: PDU, responseCallback?: ResponseCallback): boolean;
    bind_transceiver(params: Params, responseCallback?: ResponseCallback): boolean;
    submit_sm(params: Params, responseCallback?: ResponseCallback): boolean;
    deliver_sm(params: Params, responseCallback?: ResponseCallback): boolean;
    enquire_link(params: Params, responseCallback?: ResponseCallback): boolean;
    unbind(params: Params, responseCallback?: ResponseCallback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
    on(event: 'connect' | 'close', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: string, listener: (pdu: PDU) => void): this;
  }

  export class Server extends NetServer {
    sessions: Session[];
  }

  export function connect(options: { host: string; port: number }, listener?: () => void): Session;
  export function createServer(listener: (session: Session) => void): Server;

  export const errors: Record<string, number>;
}
