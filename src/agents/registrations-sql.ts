/**
 * `agent_registrations` (migration 0014): the retailers dealers asked to add, once per request
 * key, one pending per number; a decision is written only over a pending row.
 */
import type { Database } from '../records/database';

export type RegistrationState = 'pending' | 'approved' | 'rejected';

/** A dealer's request to add a retailer, and what became of it. */
export interface Registration {
  id: number;
  dealerMsisdn: string;
  msisdn: string;
  name: string;
  language: string;
  state: RegistrationState;
  requestedAt: string;
  decidedAt: string | null;
  /** Who decided: an operator (`admin`, the CLI's actor) or `dealer:<msisdn>` in direct mode. */
  decidedBy: string | null;
  note: string | null;
}

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COLUMNS = `id::text AS id, dealer_msisdn, msisdn, name, language, state,
  ${iso('requested_at')} AS requested_at, ${iso('decided_at')} AS decided_at, decided_by, note`;

interface Row {
  id: string;
  dealer_msisdn: string;
  msisdn: string;
  name: string;
  language: string;
  state: RegistrationState;
  requested_at: string;
  decided_at: string | null;
  decided_by: string | null;
  note: string | null;
}

const registrationOf = (row: Row): Registration => ({
  id: Number(row.id),
  dealerMsisdn: row.dealer_msisdn,
  msisdn: row.msisdn,
  name: row.name,
  language: row.language,
  state: row.state,
  requestedAt: row.requested_at,
  decidedAt: row.decided_at,
  decidedBy: row.decided_by,
  note: row.note,
});

export class SqlRegistrationStore {
  constructor(private readonly db: Database) {}

  /**
   * A new pending request; null when its key was used before (`byKey` finds it) or another
   * request for the number waits (one pending per number).
   */
  async create(
    requestKey: string,
    input: { dealerMsisdn: string; msisdn: string; name: string; language: string },
    at: Date,
  ): Promise<Registration | null> {
    const result = await this.db.query<Row>(
      `INSERT INTO agent_registrations (request_key, dealer_msisdn, msisdn, name, language, state, requested_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [requestKey, input.dealerMsisdn, input.msisdn, input.name, input.language, at.toISOString()],
    );
    return result.rows.length === 0 ? null : registrationOf(result.rows[0]);
  }

  async byKey(requestKey: string): Promise<Registration | null> {
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM agent_registrations WHERE request_key = $1`,
      [requestKey],
    );
    return result.rows.length === 0 ? null : registrationOf(result.rows[0]);
  }

  async get(id: number): Promise<Registration | null> {
    const result = await this.db.query<Row>(`SELECT ${COLUMNS} FROM agent_registrations WHERE id = $1`, [id]);
    return result.rows.length === 0 ? null : registrationOf(result.rows[0]);
  }

  async pendingFor(msisdn: string): Promise<Registration | null> {
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM agent_registrations WHERE msisdn = $1 AND state = 'pending'`,
      [msisdn],
    );
    return result.rows.length === 0 ? null : registrationOf(result.rows[0]);
  }

  /** Oldest first. */
  async list(options: {
    state?: RegistrationState;
    dealer?: string;
    limit: number;
  }): Promise<Registration[]> {
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM agent_registrations
       WHERE ($1::text IS NULL OR state = $1) AND ($2::text IS NULL OR dealer_msisdn = $2)
       ORDER BY requested_at, id LIMIT $3`,
      [options.state ?? null, options.dealer ?? null, options.limit],
    );
    return result.rows.map(registrationOf);
  }

  /** Decide a pending request; null when it was decided before (nothing written). */
  async decide(
    id: number,
    state: 'approved' | 'rejected',
    by: string,
    note: string | null,
    at: Date,
  ): Promise<Registration | null> {
    const result = await this.db.query<Row>(
      `UPDATE agent_registrations SET state = $2, decided_by = $3, note = $4, decided_at = $5
       WHERE id = $1 AND state = 'pending' RETURNING ${COLUMNS}`,
      [id, state, by, note, at.toISOString()],
    );
    return result.rows.length === 0 ? null : registrationOf(result.rows[0]);
  }
}
