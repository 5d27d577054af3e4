import { asOf } from '../agents/lockout';
import { AGENT_COLUMNS, agentRecordOf, type AgentRow } from '../agents/store/sql';
import { publicAgent, type Agent } from '../agents/types';
import type { Database } from '../records/database';
import type { ProductType } from '../vas/port';
import {
  MAX_SAVED_METERS,
  meterOf,
  NEWEST_METERS,
  NEWEST_ORDER,
  type MeterRow,
  type SavedMeter,
} from './saved-meters';

/** Who dials: the agent with this number (as of now), or null, and the number's saved meters. */
export interface CallerOnDial {
  agent: Agent | null;
  /** By product, newest first, five each (read even for an agent: on a code that serves no agents it is a subscriber). */
  meters: SavedMeter[];
}

// The agent's row and the saved meters as two JSON columns of one row: one statement, one round
// trip. The columns and the lists' rule stay in their stores (src/agents/store/sql.ts, saved-meters.ts).
const DIAL_READ = `SELECT
  (SELECT row_to_json(agent) FROM (SELECT ${AGENT_COLUMNS} FROM agents WHERE msisdn = $1) agent) AS agent,
  (SELECT coalesce(json_agg(meter ORDER BY ${NEWEST_ORDER}), '[]'::json) FROM (${NEWEST_METERS}) meter) AS meters`;

/**
 * The dial's one read of the records: is the caller an agent, and which meters did it
 * buy for. The dialogue asks both at once (`agentOf` and `savedMeters`, in parallel): a question
 * asked while the same number's read is under way gets that read's answer, not a second statement.
 */
export class DialCallers {
  private readonly reading = new Map<string, Promise<CallerOnDial>>();

  constructor(
    private readonly db: Database,
    private readonly products: readonly ProductType[],
    private readonly clock: () => Date = () => new Date(),
  ) {}

  read(msisdn: string): Promise<CallerOnDial> {
    const running = this.reading.get(msisdn);
    if (running) return running;
    const read = this.query(msisdn).finally(() => this.reading.delete(msisdn));
    this.reading.set(msisdn, read);
    return read;
  }

  private async query(msisdn: string): Promise<CallerOnDial> {
    const result = await this.db.query<{ agent: AgentRow | null; meters: MeterRow[] }>(DIAL_READ, [
      msisdn,
      [...this.products],
      MAX_SAVED_METERS,
    ]);
    const { agent, meters } = result.rows[0];
    return {
      // As the registry hands agents out: no PIN hash, a lockout that ran out reads `active`.
      agent: agent ? asOf(publicAgent(agentRecordOf(agent)), this.clock().getTime()) : null,
      meters: meters.map(meterOf),
    };
  }
}
