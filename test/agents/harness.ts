import express from 'express';
import type { Database } from '../../src/records/database';
import { createAgents, type Agents } from '../../src/agents';
import { accountCheckFor, AgentDesk } from '../../src/agents/admin/desk';
import { createAgentAdminRouter } from '../../src/agents/admin/router';
import { makeService } from '../purchases/harness';
import { FAST_SCRYPT, frozenClock } from './helpers';

export const ADMIN_TOKEN = 'agents-admin-token-0123456789';

/** The PIN pepper of the agents `agentAdminApp` makes (a test's, never a real one). */
export const PIN_SECRET = 'agents-harness-pin-secret-0123456789';

export const AGENTS_CONFIG = {
  agents: { maxSaleMinor: 200_000, maxDayValueMinor: 2_000_000, maxDayCount: 200, currency: 'BWP' },
  timeZone: 'Africa/Gaborone',
  defaultRegion: 'BW',
  defaultLanguage: 'en',
};

/** The agents in `db`, their desk over the sandbox's accounts, and `/admin/agents` on an express app. */
export function agentAdminApp(db: Database, sandboxUrl: string) {
  const time = frozenClock('2026-11-23T08:00:00.000Z');
  const agents: Agents = createAgents(db, AGENTS_CONFIG, {
    clock: time.clock,
    scrypt: FAST_SCRYPT,
    pinSecret: Buffer.from(PIN_SECRET),
  });
  const desk = new AgentDesk(agents, accountCheckFor(makeService(sandboxUrl)));
  const app = express();
  app.use(createAgentAdminRouter({ desk, adminToken: ADMIN_TOKEN }));
  return { app, agents, desk, time };
}
