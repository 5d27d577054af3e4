import { provideServices, ServicesError } from './support/services';

/**
 * jest's global setup (jest.config.js): the Redis and PostgreSQL the tests use, before any test
 * runs (test/support/services.ts). What cannot be had stops the run with one line, exit 1.
 */
export default async function globalSetup(): Promise<void> {
  try {
    const services = await provideServices(process.env);
    for (const note of services.notes) process.stderr.write(`npm test: ${note}\n`);
    (globalThis as { testServices?: typeof services }).testServices = services;
  } catch (error) {
    if (!(error instanceof ServicesError)) throw error;
    process.stderr.write(`npm test: ${error.message}\n`);
    process.exit(1);
  }
}
