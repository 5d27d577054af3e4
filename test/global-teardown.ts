import type { RunServices } from './support/services';

/** jest's global teardown: stops what test/global-setup.ts started for the run. */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { testServices?: RunServices }).testServices?.stop();
}
