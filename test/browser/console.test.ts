import { mkdirSync } from 'node:fs';
import path from 'node:path';
import axios from 'axios';
import type { Browser, Page } from 'playwright-core';
import { main } from '../../src/cli/main';
import type { Gateway } from '../../src/gateway/app';
import { localDay } from '../../src/i18n/local-time';
import { DECISIONS } from '../../src/reconciliation/queue';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { formatMoney, type Money } from '../../src/vas/money';
import { TEST_METERS } from '../../src/sandbox';
import type { PurchaseRecord } from '../../src/purchases/types';
import { dialogue, newPhone, outbox, startTestGateway, waitForSms } from '../e2e/harness';
import { intent } from '../purchases/fixtures';
import { testRecordsEnv } from '../support/database';
import { until } from '../support/wait';
import { ARTIFACTS, findChromium, launchChromium, watchPage } from './browser';

/**
 * The operators' console in a real headless Chromium against a whole gateway (embedded sandbox
 * and payment sandbox over HTTP, records in PostgreSQL): what care, finance and an admin do at
 * `/console`, through the page only; the operators made with the CLI as a person would.
 * `UPDATE_SCREENSHOTS=1` also writes the screenshots docs/console.md shows.
 */
const executable = findChromium();
if (!executable) {
  const message =
    'test/browser: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH): the console tests are skipped';
  if (process.env.CI) throw new Error(message);
  console.warn(message);
}
const describeInBrowser = executable ? describe : describe.skip;

jest.setTimeout(120_000);

const ADMIN_TOKEN = 'console-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
const NEW_PASSWORD = 'correct horse battery staple';
const DOCS = path.resolve(__dirname, '..', '..', 'docs');
// A zone where it is not near midnight now: the reconciled day must not change under the test.
const TZ = new Date().getUTCHours() >= 1 && new Date().getUTCHours() <= 21 ? 'UTC' : 'Pacific/Honolulu';
// The browser's own zone, where it is another day than in the books' zone right now (UTC+14 and
// UTC-11 are 25 hours apart: one of them always is): the console's "today" must be the books'.
const BROWSER_TZ =
  ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find(
    (zone) => localDay(new Date(), zone) !== localDay(new Date(), TZ),
  ) ?? 'Pacific/Kiritimati';

/** The gateway's and the CLI's pepper, as an operator sets both. */
const PEPPER = { OPERATOR_PASSWORD_PEPPER: 'test-console-operator-password-pepper-0123' };
const records = testRecordsEnv('console');
let gateway: Gateway;
let browser: Browser;
let page: Page;
let problems: string[];

/** `npm run cli -- operator …` on the gateway's records (or `env`'s); its stdout. */
async function cliOn(env: object, ...argv: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['operator', ...argv], {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    env: { ...env, ...PEPPER, USER: 'tester' },
  });
  if (code !== 0) throw new Error(`operator ${argv.join(' ')}: exit ${code}: ${err.join('\n')}`);
  return out.join('\n');
}
const cli = (...argv: string[]) => cliOn(records.env, ...argv);

async function addOperator(name: string, role: string, env: object = records.env): Promise<string> {
  const printed = await cliOn(env, 'add', '--name', name, '--role', role);
  return /one-time password: (\S+)/.exec(printed)![1];
}

async function shot(name: string, target: Page = page): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await target.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS)
    await target.screenshot({ path: path.join(DOCS, `${name}.png`), fullPage: true });
}

async function logIn(target: Page, name: string, password: string, url = gateway.url): Promise<void> {
  await target.goto(`${url}/console`);
  await target.getByLabel('Name').fill(name);
  await target.getByLabel('Password').fill(password);
  await target.getByLabel('Password').press('Enter');
}

async function sms(from: string, text: string): Promise<void> {
  await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id: `c-${Date.now()}-${Math.random()}`,
      from: `+${from}`,
      to: '12345',
      date: new Date().toISOString(),
      text,
    }),
  );
}

/** The newest SMS to `to` once there are `count`. */
async function nth(to: string, count: number): Promise<string> {
  return (await waitForSms(gateway, to, count))[0].message;
}

async function settledIn(id: string, states: string[]): Promise<PurchaseRecord> {
  return until(`purchase ${id} in ${states.join('|')}`, async () => {
    const r = await gateway.desk.get(id);
    return r && states.includes(r.state) && (r.state === 'resolved' || r.notifiedAt !== null) ? r : null;
  });
}

type Mismatch = { id: number; reason: string; amount: string; state: string; facts: { summary: string } };

/**
 * Money in that no payment of ours holds (a payer paid the paybill directly), found as finance
 * finds it each morning: the day's statement imported, the day reconciled. The mismatch, and all open.
 */
async function walkInMismatch(
  amount: string,
): Promise<{ payer: string; walkIn: Mismatch; open: Mismatch[] }> {
  const payer = newPhone();
  const sandbox = gateway.paymentSandbox!.url;
  await axios.post(`${sandbox}/sandbox/direct-payments`, {
    wire: 'daraja',
    msisdn: payer,
    amount,
    accountReference: 'WALKIN',
  });
  const day = localDay(new Date(), TZ);
  const csv = await axios.get<string>(`${sandbox}/sandbox/statements/mpesa`, {
    params: { date: day, tz: TZ },
    responseType: 'text',
  });
  await axios.post(`${gateway.url}/admin/reconciliation/statements`, csv.data, {
    headers: { ...auth.headers, 'content-type': 'text/csv' },
  });
  await axios.get(`${gateway.url}/admin/reconciliation`, { ...auth, params: { date: day } });
  const open = (await axios.get(`${gateway.url}/admin/reconciliation/mismatches`, auth)).data
    .mismatches as Mismatch[];
  const walkIn = open.find((m) => m.reason === 'statement_payment_unknown' && m.amount === `BWP ${amount}`);
  if (!walkIn) throw new Error(`no statement_payment_unknown mismatch of ${amount}: ${JSON.stringify(open)}`);
  return { payer, walkIn, open };
}

describeInBrowser('the operators console', () => {
  let adminPassword = '';

  beforeAll(async () => {
    gateway = await startTestGateway(
      {
        ...records.env,
        ...PEPPER,
        ADMIN_TOKEN,
        TZ,
        RECONCILE_DEADLINE_MS: '1000',
        SMS_REPLIES_PER_MIN: '50',
        SMS_RATE_PER_MIN: '50',
      },
      { paymentSandbox: { approveDelayMs: 100 } },
    );
    browser = await launchChromium(executable!);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: BROWSER_TZ });
    problems = watchPage(page, gateway.url);
    adminPassword = await addOperator('ada', 'admin');
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await records.drop();
  });
  afterEach(() => {
    // A refused request the test provokes is logged by the browser as a failed resource: those only.
    expect(problems.filter((p) => !/status of (401|403|423)/.test(p))).toEqual([]);
  });

  it('logs in with the one-time password, which must be changed first', async () => {
    await logIn(page, 'ada', adminPassword);
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    // Nothing else works before the change, on the API too.
    const before = await page.evaluate(async () => (await fetch('/admin/purchases/counts')).status);
    expect(before).toBe(403);
    await page.getByLabel('One-time password').fill(adminPassword);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByLabel('New password again').press('Enter');
    await page.getByRole('heading', { name: 'Today' }).waitFor();
    await page.getByText('Your password is changed.').waitFor();
    expect(await page.getByText('ada (admin)').count()).toBe(1);
    // The session cookie is out of the page's reach.
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    expect(await page.evaluate('document.cookie')).toBe('');
    await shot('console-home');
  });

  it('finds a purchase made over USSD by the phone number, and resends its token', async () => {
    const phone = newPhone();
    const replies = await dialogue(gateway, `console-${Date.now()}`, phone, [
      '1',
      TEST_METERS.active,
      '1',
      '100',
      '1',
    ]);
    expect(replies.at(-1)!.end).toBe(true);
    const token = await until('the token SMS', async () => {
      const messages = await outbox(gateway, phone);
      return messages.find((m) => /Token/.test(m.message)) ?? null;
    });
    const local = phone.slice(3);
    await page.getByLabel('Find a purchase').fill(local);
    await page.getByLabel('Find a purchase').press('Enter');
    await page.locator('[data-results="1"]').waitFor();
    const row = page.getByRole('row', { name: /succeeded/ });
    // Masked: neither the number nor the meter whole.
    expect(await row.innerText()).not.toContain(phone);
    expect(await row.innerText()).not.toContain(TEST_METERS.active);
    // The same purchase by the service's TOP/… reference and by the mobile-money receipt.
    const id = (await row.getByRole('link').getAttribute('href'))!.split('/').pop()!;
    const bought = (await gateway.desk.get(decodeURIComponent(id)))!;
    const receipt = (await gateway.payments!.store.getByPurchase(bought.id))!.receipt!;
    for (const q of [bought.result!.reference!, receipt]) {
      await page.getByLabel('Find a purchase').fill(q);
      await page.getByLabel('Find a purchase').press('Enter');
      await page.locator(`[data-results="1"][data-q="${q}"]`).waitFor();
      await page.getByRole('link', { name: bought.externalReference }).waitFor();
    }
    await page.getByRole('link', { name: bought.externalReference }).click();
    await page.getByRole('heading', { name: /Purchase/ }).waitFor();
    const story = await page.locator('main').innerText();
    expect(story).toContain('USSD');
    expect(story).toMatch(/confirm confirm-[\w-]+-1/);
    expect(story).toContain('Payment and callbacks');
    expect(story).not.toContain(phone);
    await shot('console-purchase');

    const before = (await outbox(gateway, phone)).filter((m) => m.message === token.message).length;
    await page.getByRole('button', { name: 'Resend the SMS' }).click();
    await page.getByText(/The SMS is queued again/).waitFor();
    await until('the token SMS again', async () => {
      const again = (await outbox(gateway, phone)).filter((m) => m.message === token.message).length;
      return again > before ? again : null;
    });
    // The resend is audited with the person.
    const trail = await axios.get(`${gateway.url}/admin/purchases/audit?limit=50`, auth);
    expect(trail.data.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ actor: 'ada', action: 'resend_sms' })]),
    );

    // Revealed on demand, and that is audited before it is shown.
    await page.getByRole('link', { name: /Reveal numbers and token/ }).click();
    await page.getByText('Mask the numbers again').waitFor();
    expect(await page.locator('main').innerText()).toContain(phone);
    const reveals = (
      await axios.get(`${gateway.url}/admin/purchases/audit?limit=50`, auth)
    ).data.entries.filter(
      (e: { actor: string; action: string }) => e.actor === 'ada' && e.action === 'reveal',
    );
    expect(reveals.length).toBeGreaterThan(0);
  });

  it('resolves a stuck purchase from the queue', async () => {
    const phone = newPhone();
    const sandbox = (method: 'POST' | 'DELETE', body?: object) =>
      axios({ url: `${gateway.purchaseServiceUrl}/sandbox/faults`, method, data: body });
    await sandbox('POST', { endpoint: 'confirm', fault: 'provider_timeout', completes: true });
    await sandbox('POST', { endpoint: 'retry', fault: 'internal_error', count: 1000 });
    let stuck: PurchaseRecord;
    try {
      const created = await gateway.desk.create(
        intent({ beneficiaryMsisdn: phone, requesterMsisdn: phone }),
        `console-stuck-${Date.now()}`,
      );
      stuck = await settledIn(created.id, ['needs_attention']);
    } finally {
      await sandbox('DELETE');
    }
    await page.getByRole('link', { name: 'Queues' }).click();
    await page
      .getByRole('heading', { name: /Purchases needing attention \(1\)/ })
      .waitFor({ timeout: 10_000 })
      .catch(async (e: Error) => {
        throw new Error(`${e.message}\n${await page.locator('main').innerText()}`);
      });
    await shot('console-queues');
    await page.getByRole('link', { name: stuck.externalReference }).click();
    await page.getByLabel('What was found and done').fill('token given by phone, TOP/123 checked');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('The purchase is resolved.').waitFor();
    await page.getByRole('heading', { name: /Purchase resolved/ }).waitFor();
    expect((await gateway.desk.get(stuck.id))?.resolution?.by).toBe('ada');
  });

  it("approves an agent's top-up", async () => {
    const agent = newPhone();
    const added = await axios.post(
      `${gateway.url}/admin/agents`,
      { msisdn: agent, name: 'Kgosi Shop', float: true },
      auth,
    );
    await sms(agent, `PIN ${added.data.oneTimePin} 482613`);
    expect(await nth(agent, 1)).toBe('Your PIN is changed.');
    await sms(agent, 'DEPOSIT 50 FNB-777 482613');
    await nth(agent, 2);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Top-ups to approve (1)' }).waitFor();
    await shot('console-agents');
    const id = (await axios.get(`${gateway.url}/admin/agents/deposits`, auth)).data.deposits[0].id;
    await page.getByRole('button', { name: `approve deposits ${id}` }).click();
    await page.getByText(`Top-up ${id}: approved.`).waitFor();
    await page.getByRole('heading', { name: 'Top-ups to approve (0)' }).waitFor();
    expect(await nth(agent, 3)).toBe('Deposit BWP 50.00 ref FNB-777 approved. Your float: BWP 50.00.');
    // The agent's page: its float after the top-up.
    await page.getByLabel('Open an agent by its number').fill(agent);
    await page.getByLabel('Open an agent by its number').press('Enter');
    await page.getByRole('heading', { name: /Kgosi Shop/ }).waitFor();
    expect(await page.locator('main').innerText()).toContain('50.00');
  });

  it("shows the books' day, not the browser's, with its chart, and exports the CSV", async () => {
    await page.getByRole('link', { name: 'The day' }).click();
    await page.getByRole('heading', { name: `The day: ${localDay(new Date(), TZ)}` }).waitFor();
    await page.getByRole('img', { name: 'Sales per hour, by product' }).waitFor();
    expect(await page.locator('.chart rect').count()).toBeGreaterThan(0);
    await shot('console-day');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}\.csv$/);
  });

  it('refuses a change without the CSRF token, or from another origin', async () => {
    const statuses = await page.evaluate(async () => {
      const post = (headers: Record<string, string>) =>
        fetch('/admin/notice', { method: 'DELETE', headers }).then((r) => r.status);
      return [await post({}), await post({ 'x-csrf-token': 'forged' })];
    });
    expect(statuses).toEqual([403, 403]);
    // A form posted from another site carries the cookie nowhere (SameSite=Strict) and no token.
    const other = await browser.newPage();
    try {
      await other.goto('about:blank');
      const status = await other.evaluate(async (url) => {
        try {
          return (
            await fetch(`${url}/admin/notice`, { method: 'DELETE', mode: 'no-cors', credentials: 'include' })
          ).status;
        } catch {
          return -1;
        }
      }, gateway.url);
      expect(status).not.toBe(200);
    } finally {
      await other.close();
    }
  });

  it('a care operator is refused a float adjustment, by the API and not only the page', async () => {
    const carePassword = await addOperator('cara', 'care');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await context.newPage();
    const phoneProblems = watchPage(phone, gateway.url);
    try {
      await logIn(phone, 'cara', carePassword);
      await phone.getByLabel('One-time password').fill(carePassword);
      await phone.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await phone.getByLabel('New password again').fill(NEW_PASSWORD);
      await phone.getByRole('button', { name: 'Change the password' }).click();
      await phone.getByRole('heading', { name: 'Today' }).waitFor();
      await shot('console-phone', phone);
      const agent = (await axios.get(`${gateway.url}/admin/agents?reveal=true`, auth)).data.agents[0].agent
        .msisdn;
      await phone.goto(`${gateway.url}/console#/agent/${agent}`);
      await phone.getByRole('heading', { name: /Kgosi Shop/ }).waitFor();
      // Not offered to care…
      expect(await phone.getByRole('button', { name: 'Adjust' }).count()).toBe(0);
      expect(await phone.getByRole('button', { name: 'Block' }).count()).toBe(0);
      // …and refused when asked anyway, with the session's own CSRF token.
      const refused = await phone.evaluate(async (msisdn) => {
        const me = (await (await fetch('/console/api/me')).json()) as { csrfToken: string };
        const res = await fetch(`/admin/agents/${msisdn}/adjustments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken },
          body: JSON.stringify({ amount: 'BWP 1000.00', reason: 'mine' }),
        });
        return { status: res.status, body: await res.json() };
      }, agent);
      expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden', needs: 'finance' } });
      const shown = (await axios.get(`${gateway.url}/admin/agents/${agent}`, auth)).data;
      expect(JSON.stringify(shown.float)).toContain('5000');
      expect(phoneProblems.filter((p) => !/status of 403/.test(p))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a finance operator takes a reconciliation mismatch and closes it with a decision', async () => {
    const { payer, walkIn, open } = await walkInMismatch('42.00');
    const unknown = (await axios.get(`${gateway.url}/admin/payments/unknown`, auth)).data.total as number;

    const password = await addOperator('fiona', 'finance');
    const context = await browser.newContext();
    const finance = await context.newPage();
    const financeProblems = watchPage(finance, gateway.url);
    try {
      await logIn(finance, 'fiona', password);
      await finance.getByLabel('One-time password').fill(password);
      await finance.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await finance.getByLabel('New password again').fill(NEW_PASSWORD);
      await finance.getByRole('button', { name: 'Change the password' }).click();
      await finance.getByRole('heading', { name: 'Today' }).waitFor();
      // Both queues on the home page, with the API's counts.
      const tile = (label: string) => finance.locator(`[data-count="${label}"] .count`);
      expect(await tile('Reconciliation mismatches').innerText()).toBe(String(open.length));
      expect(await tile('Payments of unknown outcome').innerText()).toBe(String(unknown));

      await tile('Reconciliation mismatches').click();
      await finance
        .getByRole('heading', { name: `Reconciliation mismatches (${open.length})` })
        .waitFor({ timeout: 10_000 })
        .catch(async (e: Error) => {
          throw new Error(`${e.message}\n${await finance.locator('main').innerText()}`);
        });
      await finance.getByRole('heading', { name: `Payments of unknown outcome (${unknown})` }).waitFor();
      const row = finance
        .getByRole('table', { name: 'Open reconciliation mismatches' })
        .getByRole('row')
        .filter({ has: finance.getByRole('cell', { name: String(walkIn.id), exact: true }) });
      const shown = await row.innerText();
      expect(shown).toContain('statement_payment_unknown');
      expect(shown).toContain(walkIn.facts.summary);
      expect(shown).toContain('investigate');
      expect(shown).toContain('nobody');
      // Masked, as everything else: the payer's number is not on the page.
      expect(await finance.locator('main').innerText()).not.toContain(payer);
      expect(await finance.locator('main').innerText()).not.toContain(payer.slice(3));

      // Taken by the keyboard alone.
      await row.getByRole('button', { name: `Assign mismatch ${walkIn.id} to me` }).focus();
      await finance.keyboard.press('Enter');
      await finance.getByText(`Mismatch ${walkIn.id} is assigned to you.`).waitFor();
      const again = finance
        .getByRole('table', { name: 'Open reconciliation mismatches' })
        .getByRole('row')
        .filter({ has: finance.getByRole('cell', { name: String(walkIn.id), exact: true }) });
      await again.getByRole('cell', { name: 'fiona', exact: true }).waitFor();
      expect(await again.getByRole('button', { name: /Assign mismatch/ }).count()).toBe(0);

      const close = again.getByRole('form', { name: `Close mismatch ${walkIn.id}` });
      // The decisions offered are the API's.
      expect(await close.getByLabel('Decision').locator('option').allInnerTexts()).toEqual([...DECISIONS]);
      await close.getByLabel('Decision').selectOption('refunded');
      await close
        .getByLabel('What was decided and done')
        .fill('payer found by phone, reversed on the portal');
      await close.getByRole('button', { name: 'Close' }).click();
      await finance.getByText(`Mismatch ${walkIn.id} is closed (refunded).`).waitFor();
      await finance
        .getByRole('heading', { name: `Reconciliation mismatches (${open.length - 1})` })
        .waitFor();

      const closed = (await axios.get(`${gateway.url}/admin/reconciliation/mismatches/${walkIn.id}`, auth))
        .data.mismatch;
      expect(closed).toMatchObject({
        state: 'closed',
        decision: 'refunded',
        assignee: 'fiona',
        closedBy: 'fiona',
      });
      const trail = (await axios.get(`${gateway.url}/admin/purchases/audit?limit=100`, auth)).data
        .entries as Array<{ actor: string; action: string }>;
      expect(trail.filter((e) => e.actor === 'fiona').map((e) => e.action)).toEqual(
        expect.arrayContaining(['mismatch_assign', 'mismatch_close']),
      );
      expect(financeProblems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a viewer sees the mismatches but is offered nothing to do with them', async () => {
    const { walkIn } = await walkInMismatch('43.00');
    const password = await addOperator('vic', 'viewer');
    const context = await browser.newContext();
    const viewer = await context.newPage();
    try {
      await logIn(viewer, 'vic', password);
      await viewer.getByLabel('One-time password').fill(password);
      await viewer.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await viewer.getByLabel('New password again').fill(NEW_PASSWORD);
      await viewer.getByRole('button', { name: 'Change the password' }).click();
      await viewer.getByRole('heading', { name: 'Today' }).waitFor();
      await viewer.goto(`${gateway.url}/console#/queues#mismatches`);
      await viewer.getByRole('table', { name: 'Open reconciliation mismatches' }).waitFor();
      await viewer.getByRole('cell', { name: String(walkIn.id), exact: true }).waitFor();
      expect(await viewer.getByRole('button', { name: /Assign mismatch/ }).count()).toBe(0);
      expect(await viewer.getByRole('form', { name: /mismatch/ }).count()).toBe(0);
      expect(await viewer.getByRole('form', { name: /Review payment/ }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('locks an account after five wrong passwords, the right one included while locked', async () => {
    const password = await addOperator('lou', 'viewer');
    const context = await browser.newContext();
    const other = await context.newPage();
    try {
      for (let n = 1; n <= 4; n++) {
        await logIn(other, 'lou', `wrong-${n}`);
        await other.getByText('wrong name or password').waitFor();
      }
      await logIn(other, 'lou', 'wrong-5');
      await other.getByText(/too many wrong passwords: locked until/).waitFor();
      await logIn(other, 'lou', password);
      await other.getByText(/too many wrong passwords: locked until/).waitFor();
      expect(await cli('list')).toMatch(/lou {2}viewer {2}active.*locked until/);
      // The operator's reset clears it.
      const reset = /one-time password: (\S+)/.exec(await cli('reset', '--name', 'lou'))![1];
      await logIn(other, 'lou', reset);
      await other.getByRole('heading', { name: 'Choose your password' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('logs out: the session ends on the server too', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('table', { name: 'Audit trail' }).waitFor();
    expect(await page.locator('main').innerText()).toContain('operator_lockout');
    await shot('console-audit');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'console_session')!.value;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You are logged out.').waitFor();
    const after = await axios.get(`${gateway.url}/admin/purchases/counts`, {
      headers: { cookie: `console_session=${cookie}` },
      validateStatus: () => true,
    });
    expect(after.status).toBe(401);
  });
});

describeInBrowser('the operators console: a payment nobody learnt the outcome of', () => {
  const ownRecords = testRecordsEnv('console-unknown');
  const payer = TEST_PAYERS.find((p) => p.behaviour === 'callback_lost')!.msisdn;
  let own: Gateway;
  let ownBrowser: Browser;

  beforeAll(async () => {
    // Its own gateway: the payer's window and the re-checks of a moment, not minutes.
    own = await startTestGateway(
      { ...ownRecords.env, ...PEPPER, ADMIN_TOKEN, SPEND_DAY_MAX_COUNT: '100' },
      {
        paymentSandbox: { approveDelayMs: 50 },
        paymentLifecycle: {
          windowMs: 600,
          marginMs: 200,
          recheckForMs: 800,
          recheckEveryMs: 200,
          requestTimeoutMs: 500,
          lostMarginMs: 200,
          pollBaseMs: 200,
          pollMaxMs: 400,
        },
      },
    );
    ownBrowser = await launchChromium(executable!);
  });
  afterAll(async () => {
    await ownBrowser?.close();
    await own?.close();
    await ownRecords.drop();
  });

  it('finance sees it counted and in its queue, and reviews it with a note', async () => {
    // The push is carried out, its answer dropped, and the callback never comes.
    await axios.post(`${own.paymentSandbox!.url}/sandbox/faults`, { operation: 'collect', fault: 'drop' });
    await dialogue(own, `console-unknown-${Date.now()}`, payer, ['1', TEST_METERS.active, '1', '100', '1']);
    const [purchase] = await own.desk.listByMsisdn(payer);
    const waiting = await until(
      'the payment in front of a person',
      async () => {
        const { payments } = (await axios.get(`${own.url}/admin/payments/unknown`, auth)).data as {
          payments: Array<{ id: string; purchaseId: string; amount: Money }>;
        };
        return payments.find((p) => p.purchaseId === purchase.id) ?? null;
      },
      { timeoutMs: 30_000 },
    );

    const password = await addOperator('fred', 'finance', ownRecords.env);
    const page = await ownBrowser.newPage();
    const pageProblems = watchPage(page, own.url);
    await logIn(page, 'fred', password, own.url);
    await page.getByLabel('One-time password').fill(password);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByRole('heading', { name: 'Today' }).waitFor();
    const tile = page.locator('[data-count="Payments of unknown outcome"] .count');
    expect(await tile.innerText()).toBe('1');
    await tile.click();
    await page.getByRole('heading', { name: 'Payments of unknown outcome (1)' }).waitFor();
    const table = page.getByRole('table', { name: 'Payments of unknown outcome' });
    expect(await table.innerText()).toContain(formatMoney(waiting.amount));
    expect(await page.locator('main').innerText()).not.toContain(payer);
    const review = table.getByRole('form', { name: `Review payment ${waiting.id}` });
    await review
      .getByLabel('What the provider said and what was done')
      .fill('not in the statement: nothing taken');
    await review.getByRole('button', { name: 'Reviewed' }).click();
    await page.getByText('The payment is reviewed.').waitFor();
    await page.getByRole('heading', { name: 'Payments of unknown outcome (0)' }).waitFor();
    const trail = (await axios.get(`${own.url}/admin/purchases/audit?limit=50`, auth)).data.entries as Array<{
      actor: string;
      action: string;
    }>;
    expect(trail).toContainEqual(
      expect.objectContaining({ actor: 'fred', action: 'review_unknown_payment' }),
    );
    expect(pageProblems).toEqual([]);
  });
});
