import { Agent, request as httpRequest } from 'node:http';
import type { SentRequest } from './wire';

/**
 * The fuzz suite's HTTP client and its counts: node:http on one keep-alive agent (the cases
 * reuse a handful of connections; cheaper per request than fetch, so most of the CPU goes to
 * the gateway). Every answer is checked against the properties and counted, so
 * `npm run test:fuzz` can print what was tried and what broke.
 */

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** Close the client's idle connections (the gateway's close waits for them otherwise). */
export function closeClient(): void {
  agent.destroy();
}

function exchange(
  url: string,
  request: SentRequest,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = request.body === null ? undefined : Buffer.from(request.body);
    const headers: Record<string, string | number> = {};
    if (request.contentType !== null) headers['content-type'] = request.contentType;
    if (body !== undefined) headers['content-length'] = body.length;
    const req = httpRequest(url, { method: request.method, agent, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface Counts {
  property: string;
  cases: number;
  requests: number;
  /** Answers with a 5xx status. */
  serverErrors: number;
  /** Requests the server never answered (connection reset or refused: the process fell over). */
  crashes: number;
  /** Answers slower than the hop budget. */
  overBudget: number;
  /** Sandbox transactions created while the property ran. */
  ledgerChanges: number;
  slowestMs: number;
}

export interface Answer {
  status: number | null;
  body: string;
  ms: number;
  error?: string;
}

/** Send one request and count its answer against `counts`. */
export async function send(
  baseUrl: string,
  request: SentRequest,
  counts: Counts,
  budgetMs: number,
): Promise<Answer> {
  const started = performance.now();
  let answer: Answer;
  try {
    const response = await exchange(`${baseUrl}${request.path}`, request, budgetMs * 2);
    answer = { ...response, ms: performance.now() - started };
  } catch (error) {
    answer = { status: null, body: '', ms: performance.now() - started, error: String(error) };
  }
  counts.requests += 1;
  if (answer.status === null) counts.crashes += 1;
  else if (answer.status >= 500) counts.serverErrors += 1;
  if (answer.ms > budgetMs) counts.overBudget += 1;
  counts.slowestMs = Math.max(counts.slowestMs, Math.round(answer.ms));
  return answer;
}

/** The counts as a table, for the test's output and the README. */
export function table(rows: Counts[]): string {
  const head = [
    'property',
    'cases',
    'requests',
    '5xx',
    'crashes',
    'over budget',
    'ledger changes',
    'slowest ms',
  ];
  const body = rows.map((r) => [
    r.property,
    r.cases,
    r.requests,
    r.serverErrors,
    r.crashes,
    r.overBudget,
    r.ledgerChanges,
    r.slowestMs,
  ]);
  const cells = [head, ...body].map((row) => row.map(String));
  const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(cells[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.slice(1).map(line),
  ].join('\n');
}
