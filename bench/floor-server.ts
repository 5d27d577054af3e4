/**
 * The benchmark's floor target: the gateway (`startGateway`, configured from the environment as
 * `npm start` is) with its dialogue engine replaced by `floorEngine` — what the hop path costs by
 * the gateway's guarantees alone (see bench/floor-engine.ts).
 */
import { startGateway } from '../src/gateway/app';
import { loadConfig } from '../src/config';
import { setLogLevel } from '../src/observability/logger';
import { floorEngine } from './floor-engine';

async function main(): Promise<void> {
  const config = loadConfig();
  setLogLevel(config.logLevel ?? 'info');
  const gateway = await startGateway(config, { hopEngine: floorEngine });
  // An orderly exit on the bench's SIGTERM, so that a CPU profile (BENCH_PROFILE) is written.
  process.once('SIGTERM', () => {
    gateway.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
