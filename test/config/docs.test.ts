import fs from 'node:fs';
import { z } from 'zod';
import * as schema from '../../src/config/schema';
import { loadConfig } from '../../src/config';

// The generator is plain node (no build step); jest loads the schema it renders through its transform.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { render, TARGET } = require('../../scripts/config-docs.js') as {
  render: (module: typeof schema) => string;
  TARGET: string;
};

/**
 * docs/configuration.md is generated from the schema (`npm run docs:config`): a variable added,
 * removed, re-defaulted or re-described without regenerating it fails here.
 */
describe('the configuration reference', () => {
  it('is what npm run docs:config writes from src/config/schema.ts (else run it)', () => {
    const fresh = render(schema);
    const onDisk = fs.readFileSync(TARGET, 'utf8');
    expect(onDisk === fresh ? 'up to date' : 'stale: run npm run docs:config').toBe('up to date');
  });

  it('names every variable of the schema with a description, in one section', () => {
    const text = render(schema);
    for (const name of Object.keys(schema.EnvSchema.shape)) expect(text).toContain(`| \`${name}\` `);
  });

  it('refuses a variable without a description or outside the sections', () => {
    const undocumented = { ...schema.SECTIONS, Extra: { NEW_VARIABLE: z.string().optional() } };
    expect(() => render({ ...schema, SECTIONS: undocumented })).toThrow(/NEW_VARIABLE has no description/);
    const { Server: _server, ...withoutServer } = schema.SECTIONS;
    expect(() => render({ ...schema, SECTIONS: withoutServer as typeof schema.SECTIONS })).toThrow(
      /not in any section of src\/config\/schema.ts: NODE_ENV, PORT/,
    );
  });

  it('shows the defaults the gateway applies when a variable is unset', () => {
    const text = render(schema);
    const config = loadConfig({});
    expect(text).toContain(`| \`PORT\` `);
    expect(text).toMatch(new RegExp(`\\| \`PORT\` +\\| \`${config.port}\` +\\|`));
    expect(text).toMatch(new RegExp(`\\| \`REDIS_PREFIX\` +\\| \`${config.redisPrefix}\` +\\|`));
    expect(text).toMatch(new RegExp(`\\| \`TZ\` +\\| \`${config.timeZone}\` +\\|`));
    expect(text).toMatch(new RegExp(`\\| \`SMS_RETRY_ATTEMPTS\` +\\| \`${config.sms.retry.attempts}\` +\\|`));
    expect(text).toMatch(/\| `AGENT_MAX_SALE` +\| `2000\.00` +\|/);
    expect(config.agents.maxSaleMinor).toBe(200_000);
  });
});
