import { localDay } from '../i18n/local-time';
import { componentLogger } from '../observability/logger';
import type { Database } from '../records/database';
import type { AgentFloat } from './float';
import type { AgentRegistry } from './registry';
import type { Agent } from './types';

const log = componentLogger('agents');

export interface SummaryScheduleOptions {
  db: Database;
  registry: Pick<AgentRegistry, 'get'>;
  float: Pick<AgentFloat, 'activeOn'>;
  /** `AGENT_SUMMARY_TIME` (`HH:MM`, local). */
  time: string;
  timeZone: string;
  /** The SMS text of an agent's day, in its language. */
  compose(agent: Agent, day: string): Promise<string>;
  /** Queue one SMS; `id` sends it once, whichever instance asks. */
  send(sms: { id: string; to: string; message: string }): Promise<void>;
  clock?: () => Date;
}

/** `HH:MM` of `at` in `timeZone`. */
function localClock(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

/**
 * The day's summary SMS (`AGENT_SUMMARY_TIME`): from that local time on, each float owner with
 * an entry or a sale that day gets one SMS — queued under `summary:<msisdn>:<day>` (the message
 * store sends an id once, so instances running this together send it once), then noted in
 * `agent_summaries` so the next pass skips it. A pass that finds nothing due does nothing.
 */
export class AgentSummarySchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private readonly clock: () => Date;

  constructor(private readonly options: SummaryScheduleOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Send what is due now; the number of summaries queued by this pass. */
  async runDue(): Promise<number> {
    const { db, timeZone } = this.options;
    const now = this.clock();
    if (localClock(now, timeZone) < this.options.time) return 0;
    const day = localDay(now, timeZone);
    const sent = new Set(
      (
        await db.query<{ msisdn: string }>(`SELECT msisdn FROM agent_summaries WHERE day = $1::date`, [day])
      ).rows.map((row) => row.msisdn),
    );
    let queued = 0;
    for (const msisdn of await this.options.float.activeOn(day)) {
      if (sent.has(msisdn)) continue;
      const agent = await this.options.registry.get(msisdn);
      if (!agent) continue;
      await this.options.send({
        id: `summary:${msisdn}:${day}`,
        to: msisdn,
        message: await this.options.compose(agent, day),
      });
      await db.query(
        `INSERT INTO agent_summaries (msisdn, day, sent_at) VALUES ($1, $2::date, $3::timestamptz)
         ON CONFLICT (msisdn, day) DO NOTHING`,
        [msisdn, day, now.toISOString()],
      );
      queued += 1;
    }
    if (queued > 0) log.info("agents' day summaries queued", { day, count: queued });
    return queued;
  }

  /** Look every `everyMs` (a minute by default); a pass still running is not started again. */
  start(everyMs = 60_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runDue()
        .catch((error: unknown) => {
          log.error("agents' day summaries failed; retried at the next pass", { error });
          return 0;
        })
        .finally(() => {
          this.running = null;
        });
    }, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
