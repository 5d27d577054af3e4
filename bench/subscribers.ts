/**
 * The load: concurrent subscribers each play whole electricity dialogues back to back against
 * one target over HTTP (Africa's Talking's form), timing every hop and reading the CPU meters
 * over the measured window (a `Result`, which bench/summary.ts turns into a row's figures).
 */
import http from 'node:http';
import { machineCpuMs, type CpuMeter } from './cpu';
import { DURATION_MS, SUBSCRIBERS, WARMUP_MS } from './options';
import type { Result } from './summary';

const METER = '01234567890';
/**
 * What a subscriber types after the dial: the service, the meter, the amount, the Buy. BWP 10 a
 * purchase (and BWP 1.50 of charges): a build's sandbox wallet pays about 87,000 (see walletLeft).
 */
const INPUTS = ['1', METER, '10', '1'];
/**
 * The places of a dialogue's hops in `latenciesByHop`, by name: the dial, one per input, and the
 * Buy in a place of its own whichever step it is (a build that asks who gets the token asks it
 * after the amount, and its quote follows the answer: one hop more).
 */
export const HOP_PLACES = ['dial', 'service', 'meter', 'amount', 'recipient', 'Buy'];
const BUY_PLACE = HOP_PLACES.length - 1;

const agent = new http.Agent({ keepAlive: true, maxSockets: SUBSCRIBERS });

/** Closes the subscribers' kept-alive connections (the run is over). */
export function closeConnections(): void {
  agent.destroy();
}

function post(
  port: number,
  urlPath: string,
  form: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Dialogues played in this run, every target: each gets a number of its own. */
let dialoguesPlayed = 0;

/** Each subscriber plays dialogues back to back; only hops after the warm-up are counted. */
export async function playDialogues(
  port: number,
  urlPath: string,
  runId: string,
  meters: CpuMeter[],
  /** Called once halfway through the measured window with the session ids of the dialogues in flight. */
  midway?: (inFlight: string[]) => Promise<void>,
): Promise<Result> {
  const latencies: number[] = [];
  const latenciesByHop: number[][] = [];
  let errors = 0;
  const unexpected: string[] = [];
  let buys = 0;
  const start = Date.now();
  const measureFrom = start + WARMUP_MS;
  const stopAt = measureFrom + DURATION_MS;
  // CPU time over the measured window: less sensitive to other load than hops/s.
  const readAll = async () => ({
    meters: await Promise.all(meters.map((meter) => meter.read().catch(() => null))),
    machine: machineCpuMs(),
  });
  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const windowFrom = delay(WARMUP_MS).then(readAll);
  const windowTo = delay(WARMUP_MS + DURATION_MS).then(readAll);
  const inFlight: string[] = [];
  const sampled = midway ? delay(WARMUP_MS + DURATION_MS / 2).then(() => midway([...inFlight])) : undefined;
  /** The screen a build that asks who gets the token (USSD_ASK_TOKEN_RECIPIENT, on by default) shows. */
  const asksTokenRecipient = (body: string) => body.startsWith('CON Send the token to');

  async function subscriber(index: number): Promise<void> {
    for (let dialogue = 0; Date.now() < stopAt; dialogue += 1) {
      // A number of its own per dialogue: a repeat buyer whose last purchase is still in progress
      // (no worker runs during a round) is asked "Buy again anyway?" first, which is not this
      // script's dialogue.
      const phone = `+2677${String(1000000 + (dialoguesPlayed++ % 9000000)).slice(-7)}`;
      const sessionId = `bench-${runId}-${index}-${dialogue}`;
      inFlight[index] = sessionId;
      // Africa's Talking's cumulative text; "This phone" is typed when the question is asked, so
      // every target (the peer, the floor, an earlier build that never asks) plays its own whole Buy.
      const typed: string[] = [];
      let answered = 0;
      for (let step = 0; step <= INPUTS.length + answered; step += 1) {
        const text = typed.join('*');
        const sent = process.hrtime.bigint();
        const reply = await post(port, urlPath, {
          sessionId,
          phoneNumber: phone,
          serviceCode: '*384*1#',
          networkCode: '99999',
          text,
        });
        const tookMs = Number(process.hrtime.bigint() - sent) / 1e6;
        // A dialogue that ends before its Buy (a refusal, a limit) is unfinished: counted as an error.
        const last = step === INPUTS.length + answered;
        const ok = reply.status === 200 && (last ? /^END /.test(reply.body) : /^CON /.test(reply.body));
        if (ok && last) buys += 1;
        const now = Date.now();
        if (now >= measureFrom && now < stopAt) {
          if (ok) {
            latencies.push(tookMs);
            const place = last ? BUY_PLACE : step;
            (latenciesByHop[place] ??= []).push(tookMs);
          } else {
            errors += 1;
            if (unexpected.length < 3)
              unexpected.push(
                `hop ${step + 1} (${JSON.stringify(text)}): ${reply.status} ${JSON.stringify(reply.body)}`,
              );
          }
        }
        if (!ok || reply.body.startsWith('END')) break;
        if (asksTokenRecipient(reply.body)) {
          typed.push('1');
          answered += 1;
        } else typed.push(INPUTS[typed.length - answered]);
      }
    }
  }

  await Promise.all(Array.from({ length: SUBSCRIBERS }, (_, i) => subscriber(i)));
  const [from, to] = await Promise.all([windowFrom, windowTo, sampled]);
  const cpu = meters.map((meter, i) => {
    const [before, after] = [from.meters[i], to.meters[i]];
    return { name: meter.name, ms: before !== null && after !== null ? after - before : null };
  });
  const machine =
    from.machine && to.machine
      ? { busy: to.machine.busy - from.machine.busy, total: to.machine.total - from.machine.total }
      : null;
  return {
    hops: latencies.length,
    buys,
    cpu,
    machine,
    errors,
    unexpected,
    elapsedMs: DURATION_MS,
    latencies,
    latenciesByHop,
  };
}
