import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The log lines of one turn of the event loop reach stdout in one write, and the lines still
 * pending when the process ends are not lost, however it ends.
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');
const BURST = path.join(__dirname, 'fixtures/log-burst.ts');

function burst(
  ending: 'exit' | 'throw' | 'drain',
): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  const child = spawn(process.execPath, ['-r', HOOK, BURST, ending], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, lines: stdout.split('\n').filter(Boolean), stderr })),
  );
}

describe('log lines are written once per turn of the event loop', () => {
  it.each(['exit', 'throw', 'drain'] as const)(
    'one write for a burst, and every line in order when the process ends (%s)',
    async (ending) => {
      const { code, lines, stderr } = await burst(ending);
      expect(stderr).toContain('writes after the first turn: 1\n');
      expect(code).toBe({ exit: 3, throw: 1, drain: 0 }[ending]);
      const numbers = lines.map((line) => (JSON.parse(line) as { i: number }).i);
      expect(numbers).toEqual(Array.from({ length: 60 }, (_, i) => i));
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: 'info', component: 'burst' });
    },
    30_000,
  );
});
