import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');

/**
 * A process that connects, ends its socket and at once resets it (what the proxy's cut does to a
 * connection whose other side has just closed) must still exit: Node cannot reset a socket whose
 * shutdown is under way, and a plain `resetAndDestroy()` there left the process spinning at exit
 * (the database fault suite's jest process, once in a few runs).
 */
function endThenReset() {
  const script = `
    const net = require('node:net');
    const { resetSocket } = require(${JSON.stringify(path.join(ROOT, 'test/support/tcp-proxy.ts'))});
    const server = net.createServer((peer) => peer.on('error', () => undefined).resume());
    server.listen(0, '127.0.0.1', () => {
      const socket = net.connect(server.address().port, '127.0.0.1', () => {
        socket.on('error', () => undefined);
        socket.end();
        process.nextTick(() => {
          resetSocket(socket);
          server.close();
          console.log('reset');
        });
      });
    });`;
  return spawnSync(process.execPath, ['-r', HOOK, '-e', script], { timeout: 15_000, encoding: 'utf8' });
}

it('a socket reset just after its end() lets the process exit', () => {
  const run = endThenReset();
  expect(run.stdout).toContain('reset');
  expect({ status: run.status, signal: run.signal }).toEqual({ status: 0, signal: null });
});
