import net from 'node:net';

/**
 * A TCP relay to a real server (PostgreSQL, Redis) that a test can cut and restore: cut, it
 * drops every connection and refuses new ones, as a database that failed over or a network
 * partition does; restored, it accepts again on the same port.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private chosenPort = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get port(): number {
    return this.chosenPort;
  }

  /** Accept (again) on its port (any free one the first time). */
  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.chosenPort, '127.0.0.1', () => resolve());
    });
    this.chosenPort = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Drop every connection and refuse new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
