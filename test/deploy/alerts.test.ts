import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { DEPLOY_DIR, readYamlDocuments } from './kustomize';

/**
 * deploy/prometheus/alerts.yml checked and unit-tested by promtool (Debian's `prometheus`
 * package; .ci/run installs it when missing): every alert fires on the series that should fire
 * it and stays silent on a healthy deployment's (alerts.test.yml).
 */

const PROMETHEUS = join(DEPLOY_DIR, 'prometheus');
/** Minute by minute, and the day-long ones every 5 minutes (a day at 1 m costs seconds of CPU). */
const TEST_FILES = ['alerts.test.yml', 'alerts-day.test.yml'];

function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd: PROMETHEUS, encoding: 'utf8' });
  if (result.error)
    throw new Error(`promtool is not installed (apt-get install -y prometheus): ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

it('promtool check rules: the rules are valid', () => {
  const { status, output } = promtool('check', 'rules', 'alerts.yml');
  expect(output).toMatch(/SUCCESS: \d+ rules found/);
  expect(status).toBe(0);
});

it('promtool test rules: each alert fires on its series and stays silent on a healthy deployment', () => {
  const { status, output } = promtool('test', 'rules', ...TEST_FILES);
  expect(output).toContain('SUCCESS');
  expect(status).toBe(0);
});

it('every alert has a test that fires it, one that keeps it silent, and a runbook line in docs/operations.md', () => {
  const alerts = (
    readYamlDocuments(join(PROMETHEUS, 'alerts.yml'))[0] as { groups: { rules: { alert: string }[] }[] }
  ).groups.flatMap((g) => g.rules.map((r) => r.alert));
  const tests = TEST_FILES.flatMap((file) =>
    (
      readYamlDocuments(join(PROMETHEUS, file))[0] as {
        tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
      }
    ).tests.flatMap((t) => t.alert_rule_test),
  );
  const runbook = readFileSync(join(DEPLOY_DIR, '..', 'docs/operations.md'), 'utf8');
  for (const alert of alerts) {
    expect([alert, tests.some((t) => t.alertname === alert && t.exp_alerts.length > 0)]).toEqual([
      alert,
      true,
    ]);
    expect([alert, tests.some((t) => t.alertname === alert && t.exp_alerts.length === 0)]).toEqual([
      alert,
      true,
    ]);
    expect(runbook).toMatch(new RegExp(`^\\| \`${alert}\` +\\|`, 'm'));
  }
});
