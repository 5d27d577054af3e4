import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NodeProcess } from '../support/node-process';
import { until } from '../support/wait';

/**
 * The README's five-minute walkthrough, as a newcomer pastes it: every ```sh walkthrough block,
 * read from README.md itself, run by bash as written against `npm start`'s entry point
 * (src/main.ts as a real process, nothing set but a free port and a temporary DATA_DIR). The
 * README says `localhost:3000`; only that is replaced by the gateway's address. The walkthrough is
 * run twice, as a reader may paste it again: each run buys again.
 */

const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
const BLOCKS = [...README.matchAll(/^```sh walkthrough\n([\s\S]*?)^```/gm)].map(([, body]) => body);

let dataDir: string;
let gateway: NodeProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'walkthrough-'));
  gateway = new NodeProcess('src/main.ts', { DATA_DIR: dataDir });
  await gateway.start();
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  block: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One block in bash (-e: a failing command fails the block), bounded in time. */
function runBlock(block: string, host: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-c', block.replaceAll('localhost:3000', host)], {
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ block: block.split('\n')[0], code, stdout, stderr });
    });
  });
}

/** The token SMS in the gateway's outbox (this test's gateway: the walkthrough's only). */
async function tokenSms(): Promise<string[]> {
  const answer = await fetch(`${gateway.url}/dev/sms`);
  const { messages } = (await answer.json()) as { messages: { message: string }[] };
  return messages.map((m) => m.message).filter((text) => /Token: \d{4} \d{4}/.test(text));
}

it('the README has walkthrough blocks: a USSD purchase, the outbox, an SMS purchase', () => {
  expect(BLOCKS.length).toBeGreaterThanOrEqual(3);
  expect(BLOCKS.join('\n')).toMatch(/\/ussd\/africastalking/);
  expect(BLOCKS.join('\n')).toMatch(/\/sms\/africastalking/);
  expect(BLOCKS.join('\n')).toMatch(/\/dev\/sms/);
});

it('/healthz of npm start names each part for what it runs on', async () => {
  const health = await fetch(`${gateway.url}/healthz`);
  expect([health.status, await health.json()]).toEqual([
    200,
    {
      status: 'ok',
      sessions: 'in memory',
      jobs: 'in process',
      records: 'embedded PostgreSQL (PGlite)',
      purchaseService: 'embedded sandbox',
      interface: 'v1',
      payments: 'embedded sandbox (mpesa)',
      sms: 'outbox',
      redis: 'not used',
    },
  ]);
});

it('every walkthrough block runs as written against npm start, twice, and each purchase gets its token SMS', async () => {
  const host = gateway.url.replace(/^http:\/\//, '');
  const purchases = (text: string) => (text.match(/\/(ussd|sms)\/africastalking/g) ?? []).length > 0;
  let bought = 0;
  for (let round = 1; round <= 2; round++) {
    for (const block of BLOCKS) {
      const run = await runBlock(block, host);
      expect({ round, ...run, log: run.code === 0 ? '' : gateway.log.slice(-3000) }).toEqual(
        expect.objectContaining({ code: 0, stderr: '', log: '' }),
      );
      // No dialogue ended on an error or a refusal: fresh ids each run, nothing "already" seen.
      expect(run.stdout).not.toMatch(/Sorry|session has ended|try again|already/i);
      if (purchases(block)) bought++;
    }
  }
  expect(bought).toBe(4);
  // Each purchase (USSD and SMS, in both rounds) ends with its token SMS to its buyer.
  await until('four token SMS in the outbox', async () => (await tokenSms()).length >= 4, {
    timeoutMs: 60_000,
  });
  expect(await tokenSms()).toHaveLength(4);
}, 240_000);
