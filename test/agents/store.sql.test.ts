import { AgentRegistry } from '../../src/agents';
import { SqlAgentStore } from '../../src/agents/store/sql';
import type { Database } from '../../src/records/database';
import { testDatabase, testPglite } from '../support/database';
import { FAST_SCRYPT } from './helpers';
import { agentStoreContract } from './store.contract';

describe.each([
  ['postgres', () => testDatabase('agents')],
  ['pglite', () => testPglite()],
] as const)('sql agent store on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  afterEach(() => db.query('TRUNCATE agents'));

  agentStoreContract(kind, async () => new SqlAgentStore(db));

  it('keeps the PIN as its salted hash only, and refuses a record that breaks the rules', async () => {
    const registry = new AgentRegistry({
      store: new SqlAgentStore(db),
      timeZone: 'Africa/Gaborone',
      region: 'BW',
      scrypt: FAST_SCRYPT,
    });
    const { oneTimePin } = await registry.add({
      msisdn: '26771234567',
      name: 'A',
      funding: { kind: 'float' },
    });
    const row = await db.query<Record<string, unknown>>('SELECT * FROM agents');
    expect(JSON.stringify(row.rows)).not.toContain(oneTimePin);
    // A disabled agent must say why; a locked one until when.
    await expect(db.query("UPDATE agents SET status = 'disabled'")).rejects.toThrow(/check constraint/);
    await expect(db.query("UPDATE agents SET status = 'locked'")).rejects.toThrow(/check constraint/);
  });
});
