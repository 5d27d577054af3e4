/**
 * Liveness and readiness, kept apart as an orchestrator needs them. Liveness says the process
 * serves (its event loop turns): it never asks a dependency, so a PostgreSQL failover or a Redis
 * restart does not get every pod restarted at once. Readiness says it can take a Buy now: each
 * named check (the records answer, Redis answers, the schema is at this build's migrations) must
 * pass within its time, else 503 with what is not ready. The checks themselves are built by the
 * composition root (`src/gateway/readiness.ts`): this module knows no dependency.
 */
import { Router } from 'express';

/** One readiness check: resolves when ready, throws (with a reason an operator can act on) when not. */
export type ReadinessCheck = () => Promise<void>;

/** What one readiness run found: `ok`, or why not, for each check. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, string>;
}

/** Longest a check may take before it counts as not ready (a hung dependency must not hang the probe). */
export const READINESS_CHECK_MS = 1500;

/** Runs every check at once, each bounded by `timeoutMs`. */
export async function runReadiness(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = READINESS_CHECK_MS,
): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, string]> => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        timer.unref();
      });
      try {
        await Promise.race([check(), timedOut]);
        return [name, 'ok'];
      } catch (error) {
        return [name, (error as Error).message || String(error)];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const report = Object.fromEntries(entries);
  return { ready: entries.every(([, state]) => state === 'ok'), checks: report };
}

/** An HTTP answer of a probe: status and JSON body. */
export interface ProbeAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The probes of one process (`role`: gateway or worker). `draining` turns readiness off for a
 * graceful stop, so the load balancer stops sending before the listener closes.
 */
export class Probes {
  private draining = false;

  constructor(
    private readonly role: string,
    private readonly checks: Record<string, ReadinessCheck>,
  ) {}

  /** `GET /livez`: 200 while the process answers; no dependency is asked. */
  live(): ProbeAnswer {
    return { status: 200, body: { status: 'live', role: this.role } };
  }

  /** `GET /readyz`: 200 when every check passes, else 503 naming each check's state. */
  async ready(): Promise<ProbeAnswer> {
    if (this.draining)
      return { status: 503, body: { status: 'not ready', role: this.role, reason: 'stopping' } };
    const report = await this.report();
    return {
      status: report.ready ? 200 : 503,
      body: { status: report.ready ? 'ready' : 'not ready', role: this.role, checks: report.checks },
    };
  }

  /** The checks' states now (the `/metrics` gauge reads them too). */
  report(): Promise<ReadinessReport> {
    return runReadiness(this.checks);
  }

  /** From now on readiness answers 503 (the process is stopping). */
  drain(): void {
    this.draining = true;
  }
}

/** `GET /livez` and `GET /readyz` of a process, never cached. */
export function probesRouter(probes: Probes): Router {
  const router = Router();
  router.get('/livez', (_req, res) => {
    const answer = probes.live();
    res.status(answer.status).set('Cache-Control', 'no-store').json(answer.body);
  });
  router.get('/readyz', async (_req, res) => {
    const answer = await probes.ready();
    res.status(answer.status).set('Cache-Control', 'no-store').json(answer.body);
  });
  return router;
}
