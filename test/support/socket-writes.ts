import { Socket } from 'node:net';

/**
 * What goes out on this process's sockets, counted at Node's own socket (not the records'
 * coalescing one): each `_write` or `_writev` is one system call with the chunks it was given. On
 * a connection to PostgreSQL, each is one round trip's request.
 */
export interface SocketWrites {
  /** System calls since `start` (or the last `reset`). */
  calls: number;
  /** Their bytes as text, one call's after another, each ended by `|`. */
  text: string;
  reset(): void;
  /** Puts Node's own methods back. */
  stop(): void;
}

const { _write: nodeWrite, _writev: nodeWritev } = Socket.prototype as unknown as {
  _write: (chunk: Buffer, encoding: string, done: () => void) => void;
  _writev: (chunks: { chunk: Buffer }[], done: () => void) => void;
};

/** Counts every socket write of this process from now on (`toPort`: only to that port), until `stop`. */
export function countSocketWrites(options: { toPort?: number } = {}): SocketWrites {
  const counts = (socket: Socket) => options.toPort === undefined || socket.remotePort === options.toPort;
  const sent: SocketWrites = {
    calls: 0,
    text: '',
    reset() {
      sent.calls = 0;
      sent.text = '';
    },
    stop() {
      Object.assign(Socket.prototype, { _write: nodeWrite, _writev: nodeWritev });
    },
  };
  Object.assign(Socket.prototype, {
    _write(this: Socket, chunk: Buffer, encoding: string, done: () => void) {
      if (!counts(this)) return nodeWrite.call(this, chunk, encoding, done);
      sent.calls += 1;
      sent.text += `${String(chunk)}|`;
      return nodeWrite.call(this, chunk, encoding, done);
    },
    _writev(this: Socket, chunks: { chunk: Buffer }[], done: () => void) {
      if (!counts(this)) return nodeWritev.call(this, chunks, done);
      sent.calls += 1;
      sent.text += `${chunks.map((c) => String(c.chunk)).join('')}|`;
      return nodeWritev.call(this, chunks, done);
    },
  });
  return sent;
}
