import path from 'node:path';
import express, { Router, type Response } from 'express';
import type { GenericMapping } from '../ussd/aggregators/generic/adapter';
import type { AggregatorSettings } from '../ussd/router';
import { AgentExistsError, AgentInputError } from '../agents';
import type { AgentDesk } from '../agents/admin/desk';
import { maskMsisdn } from '../phone';
import { componentLogger } from '../observability/logger';

const log = componentLogger('simulator');

/**
 * The web phone simulator (dev routes only): the static page at `GET /simulator`, what it needs
 * to know about this gateway at `GET /dev/simulator/config`, and a same-origin window on the
 * embedded sandbox (`/dev/simulator/sandbox/*`). The page itself speaks each aggregator's wire
 * format to the real `/ussd/<name>` and `/sms/<path>` routes; nothing here touches the engine.
 */
export interface SimulatorOptions {
  /** Adapter names in the order the gateway mounts them. */
  aggregators: readonly string[];
  /** The gateway-wide screen limit and the per-aggregator overrides (`USSD_SCREEN_LIMIT_<NAME>`). */
  defaultScreenLimit: number;
  aggregatorSettings: Record<string, AggregatorSettings>;
  /** The gateway-wide USSD callback secret (only whether one is set is told to the page). */
  ussdSecret?: string;
  /** `USSD_GENERIC_MAPPING` parsed, so the page can speak the generic format. */
  genericMapping?: GenericMapping;
  /** Comviva checks `userid`/`password` (the page asks for them). */
  comvivaCredentials: boolean;
  /** Inbound SMS formats by route path (`africastalking`, `inbound`). */
  inbound: readonly { name: string; path: string }[];
  smsSecret?: string;
  /** The embedded sandbox's base URL; undefined with a real purchase service. */
  sandboxUrl?: string;
  /**
   * The embedded payment sandbox's base URL; undefined with a real payment provider (or none).
   * The page switches its phones to manual answers there and shows each push on the handset.
   */
  paymentSandboxUrl?: string;
  /**
   * Registers demo agents (`POST /dev/simulator/agents`): given only in the embedded mode, where
   * a float credited from nothing pays the sandbox, never a real service.
   */
  agentDesk?: AgentDesk;
}

/** The float a demo agent starts with, in the floats' currency. */
const DEMO_FLOAT = '500.00';

/** Where the page's files are: beside this module in the source tree and in dist/ (copy-assets). */
export const SIMULATOR_PUBLIC = path.join(__dirname, 'public');

/** The page's static files are served only from this list: nothing else in the folder leaks. */
const FILES = new Set(['simulator.js', 'simulator.css']);

/** Last transactions the ledger panel shows by default (and at most). */
const LEDGER_DEFAULT = 10;
const LEDGER_MAX = 100;
/** A sandbox that does not answer must not hang the page's panel. */
const SANDBOX_TIMEOUT_MS = 5000;

/** Only what the page draws with: no secret, no credential, whether they are required. */
function pageConfig(options: SimulatorOptions) {
  return {
    aggregators: options.aggregators.map((name) => {
      const own = options.aggregatorSettings[name] ?? {};
      return {
        name,
        screenLimit: own.screenLimit ?? options.defaultScreenLimit,
        keyRequired: Boolean(own.callbackSecret ?? options.ussdSecret),
      };
    }),
    defaultScreenLimit: options.defaultScreenLimit,
    genericMapping: options.genericMapping ?? null,
    comvivaCredentials: options.comvivaCredentials,
    inbound: options.inbound.map(({ name, path: route }) => ({ name, path: route })),
    smsKeyRequired: Boolean(options.smsSecret),
    sandbox: options.sandboxUrl !== undefined,
    payments: options.paymentSandboxUrl !== undefined,
    agents: options.agentDesk !== undefined,
  };
}

export function simulatorRouter(options: SimulatorOptions): Router {
  const router = Router();
  const config = pageConfig(options);

  // The page may load only its own files: no CDN, no inline script (a strict CSP keeps it honest).
  const pageHeaders = (res: Response): void => {
    res.set({
      'Cache-Control': 'no-store',
      'Content-Security-Policy':
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
    });
  };

  router.get('/simulator', (_req, res) => {
    pageHeaders(res);
    res.sendFile(path.join(SIMULATOR_PUBLIC, 'index.html'));
  });
  router.get('/simulator/:file', (req, res, next) => {
    const file = String(req.params.file);
    if (!FILES.has(file)) return next();
    pageHeaders(res);
    res.sendFile(path.join(SIMULATOR_PUBLIC, file));
  });

  router.get('/dev/simulator/config', (_req, res) => {
    res.set('Cache-Control', 'no-store').json(config);
  });

  /** Pass one sandbox operator call through, status and JSON body as they are. */
  function sandbox(res: Response, what: string, init?: RequestInit): Promise<unknown> {
    if (options.sandboxUrl !== undefined) return passThrough(options.sandboxUrl, res, what, init);
    res.status(404).json({ error: 'no embedded sandbox: this gateway uses a real purchase service' });
    return Promise.resolve(undefined);
  }

  /** The same, to the embedded payment sandbox. */
  function paymentSandbox(res: Response, what: string, init?: RequestInit): Promise<unknown> {
    if (options.paymentSandboxUrl !== undefined)
      return passThrough(options.paymentSandboxUrl, res, what, init);
    res.status(404).json({ error: 'no embedded payment sandbox: this gateway uses a real payment provider' });
    return Promise.resolve(undefined);
  }

  async function passThrough(
    base: string,
    res: Response,
    what: string,
    init?: RequestInit,
  ): Promise<unknown> {
    try {
      const answer = await fetch(`${base}/sandbox/${what}`, {
        ...init,
        signal: AbortSignal.timeout(SANDBOX_TIMEOUT_MS),
      });
      const text = await answer.text();
      // 204 (faults cleared) has no body; express then sends the status alone.
      const body: unknown = text === '' ? {} : JSON.parse(text);
      res.status(answer.status);
      if (!answer.ok) {
        res.json(body);
        return undefined;
      }
      return body;
    } catch (error) {
      log.warn('the embedded sandbox did not answer', { what, error: (error as Error).message });
      res.status(502).json({ error: 'the embedded sandbox did not answer' });
      return undefined;
    }
  }

  router.get('/dev/simulator/sandbox/scenarios', async (_req, res) => {
    const body = await sandbox(res, 'scenarios');
    if (body !== undefined) res.json(body);
  });

  router.get('/dev/simulator/sandbox/transactions', async (req, res) => {
    const raw = typeof req.query.limit === 'string' ? req.query.limit : undefined;
    if (raw !== undefined && !(/^[1-9]\d{0,2}$/.test(raw) && Number(raw) <= LEDGER_MAX)) {
      res.status(400).json({ error: `limit must be a whole number from 1 to ${LEDGER_MAX}` });
      return;
    }
    const limit = Number(raw ?? LEDGER_DEFAULT);
    const body = await sandbox(res, 'transactions');
    // The ledger is in creation order: the page wants the newest first.
    if (Array.isArray(body)) res.json(body.slice(-limit).reverse());
    else if (body !== undefined) res.status(502).json({ error: 'the sandbox ledger is not a list' });
  });

  router.get('/dev/simulator/sandbox/faults', async (_req, res) => {
    const body = await sandbox(res, 'faults');
    if (body !== undefined) res.json(body);
  });
  router.post('/dev/simulator/sandbox/faults', express.json({ limit: '4kb' }), async (req, res) => {
    // The sandbox checks the fault itself (and answers 400 naming what is wrong).
    const body = await sandbox(res, 'faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(req.body ?? {}),
    });
    if (body !== undefined) res.json(body);
  });
  router.delete('/dev/simulator/sandbox/faults', async (_req, res) => {
    const body = await sandbox(res, 'faults', { method: 'DELETE' });
    if (body !== undefined) res.json(body);
  });

  // The payment prompt on the handset: the page's phones answer their pushes by hand.
  router.post('/dev/simulator/payments/manual', express.json({ limit: '4kb' }), async (req, res) => {
    const msisdn: unknown = (req.body as { msisdn?: unknown } | undefined)?.msisdn;
    const body = await paymentSandbox(res, 'payers/manual', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn }),
    });
    if (body !== undefined) res.json(body);
  });
  router.get('/dev/simulator/payments/prompts', async (req, res) => {
    const msisdn = typeof req.query.msisdn === 'string' ? req.query.msisdn : '';
    if (!/^\d{6,15}$/.test(msisdn)) {
      res.status(400).json({ error: 'msisdn must be 6 to 15 digits' });
      return;
    }
    const body = await paymentSandbox(res, `prompts?msisdn=${msisdn}`);
    if (body !== undefined) res.json(body);
  });
  router.post('/dev/simulator/payments/prompts/:id/:answer', async (req, res) => {
    const { id, answer } = req.params;
    if (answer !== 'approve' && answer !== 'decline') {
      res.status(404).json({ error: 'answer is approve or decline' });
      return;
    }
    const body = await paymentSandbox(res, `prompts/${encodeURIComponent(String(id))}/${answer}`, {
      method: 'POST',
    });
    if (body !== undefined) res.json(body);
  });
  router.get('/dev/simulator/payments', async (_req, res) => {
    const body = (await paymentSandbox(res, 'payments')) as { payments?: unknown } | undefined;
    // Newest first already: the panel shows the last ones.
    if (body !== undefined)
      res.json({ payments: Array.isArray(body.payments) ? body.payments.slice(0, LEDGER_DEFAULT) : [] });
  });

  // A phone becomes a float agent with BWP 500.00 (or, already one, gets a fresh one-time PIN).
  router.post('/dev/simulator/agents', express.json({ limit: '4kb' }), async (req, res) => {
    const desk = options.agentDesk;
    if (!desk) {
      res
        .status(404)
        .json({ error: 'demo agents exist only with the embedded sandbox; use npm run cli -- agent add' });
      return;
    }
    const msisdn: unknown = (req.body as { msisdn?: unknown } | undefined)?.msisdn;
    try {
      let created: { oneTimePin: string; agent: { msisdn: string } };
      let credited = false;
      try {
        created = await desk.add({ msisdn, name: 'Simulator Shop', float: true });
        await desk.credit(created.agent.msisdn, {
          amount: DEMO_FLOAT,
          reference: `SIMULATOR-${created.agent.msisdn}`,
          note: 'demo float (simulator)',
        });
        credited = true;
      } catch (error) {
        if (!(error instanceof AgentExistsError)) throw error;
        created = await desk.resetPin(msisdn);
      }
      log.info('simulator registered a demo agent', { msisdn: maskMsisdn(created.agent.msisdn), credited });
      // The one-time PIN is in this answer only, as with `agent add`: the page shows it once.
      res.status(credited ? 201 : 200).json({
        msisdn: created.agent.msisdn,
        oneTimePin: created.oneTimePin,
        float: credited ? DEMO_FLOAT : null,
      });
    } catch (error) {
      if (error instanceof AgentInputError) {
        res.status(400).json({ error: error.message, field: error.field });
        return;
      }
      log.error('simulator could not register a demo agent', { error });
      res.status(500).json({ error: 'could not register the agent' });
    }
  });

  return router;
}
