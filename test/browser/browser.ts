import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

/**
 * A real headless Chromium for the browser tests: Debian's `chromium` package (what `.ci/run`
 * installs), or the one `CHROMIUM_PATH` names. Nothing is downloaded at run time.
 */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given) return existsSync(given) ? given : undefined;
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    // --no-sandbox: CI runs as root in a container; no background traffic to Google's services.
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** Where tests leave screenshots (gitignored). */
export const ARTIFACTS = path.resolve(__dirname, '..', '..', 'test-artifacts');

/**
 * Everything the page complains about: console errors, uncaught exceptions, and any request that
 * leaves the gateway's origin (the page must fetch nothing from the internet).
 */
export function watchPage(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:'))
      problems.push(`request outside the gateway: ${url}`);
  });
  return problems;
}
