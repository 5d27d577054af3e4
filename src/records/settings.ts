/** Where the system of record is: a PostgreSQL server, or PGlite in this process. */
export interface RecordsSettings {
  /** `DATABASE_URL` (`postgres://…`); unset: the embedded PGlite under `dataDir`. */
  url?: string;
  /** `DATABASE_SCHEMA`: the schema the tables live in on the server (default `public`). */
  schema?: string;
  /** `DATABASE_PREPARED_STATEMENTS` (default true): statements prepared once per connection. */
  preparedStatements?: boolean;
  /** `DATA_DIR` (default `./data`): the embedded database's folder; `memory://` keeps it in memory. */
  dataDir: string;
  /** `TOKEN_ENCRYPTION_KEY`: the key tokens are sealed under at rest (./sealing.ts `sealerFor`). */
  tokenKey?: string | null;
  /** `TOKEN_ENCRYPTION_KEY_PREVIOUS`: earlier keys, still opening what they sealed. */
  previousTokenKeys?: readonly string[];
}

/** The in-memory embedded database (tests, throw-away demos). */
export const IN_MEMORY = 'memory://';
