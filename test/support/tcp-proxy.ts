import net, { type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy a test controls, in front of a real server (PostgreSQL): `cut()` is what a
 * failover or a restart does to the clients — every open connection reset, every new one
 * refused — until `restore()`. The server itself keeps running and keeps what it committed.
 */
export class TcpProxy {
  port = 0;
  private down = false;
  private readonly open = new Set<Socket>();
  private readonly server = net.createServer((client) => this.accept(client));

  constructor(private readonly target: { host: string; port: number }) {}

  /** `postgres://127.0.0.1:5432/test` → a proxy in front of that host and port. */
  static forUrl(url: string): TcpProxy {
    const parsed = new URL(url);
    return new TcpProxy({ host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || 5432) });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** The same URL with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Whether connections go through now. */
  get up(): boolean {
    return !this.down;
  }

  /** Reset every connection through the proxy and refuse new ones. */
  cut(): void {
    this.down = true;
    for (const socket of this.open) resetSocket(socket);
    this.open.clear();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.open.add(socket);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.open.delete(socket);
        other.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

/**
 * Reset `socket`, or destroy it if it has begun to close: Node cannot reset a socket whose
 * shutdown is under way (libuv refuses the reset, and Node then never closes the handle: the
 * process spins at exit, waiting for it). A socket that has sent its FIN is half gone already.
 */
export function resetSocket(socket: Socket): void {
  if (socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}
