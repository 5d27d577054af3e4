import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Gateway } from '../../src/gateway/app';
import { startTestGateway } from '../e2e/harness';
import { testRedis, type TestRedis } from '../support/redis';
import { DEPLOY_DIR, readYamlDocuments } from './kustomize';

/**
 * Every metric an alert rule, a dashboard panel or an autoscaler's adapter rule names is one a
 * running gateway exports (the worker registers the same money-path series: its readiness and
 * queues are checked in test/observability/probes.test.ts). A renamed metric fails here, not on
 * the night an alert should have fired.
 */

/** Series Prometheus makes itself. */
const NOT_OURS = new Set(['up']);
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring']);

/** The metric names a PromQL expression reads. */
function metricNamesOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...stripped.matchAll(/(?<![\w:$.])([a-zA-Z_:][\w:]*)\b(?!\s*\()/g)]
    .map((m) => m[1])
    .filter((name) => !PROMQL_WORDS.has(name));
}

function ruleExpressions(): string[] {
  const rules = readYamlDocuments(join(DEPLOY_DIR, 'prometheus/alerts.yml'))[0] as {
    groups: { rules: { expr: string }[] }[];
  };
  return rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
}

function panelExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(join(DEPLOY_DIR, 'grafana/ussd-gateway.json'), 'utf8')) as {
    panels: { type: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
}

function adapterExpressions(): string[] {
  const adapter = readYamlDocuments(join(DEPLOY_DIR, 'prometheus/adapter-rules.yaml'))[0] as {
    rules: { seriesQuery: string }[];
    externalRules: { seriesQuery: string }[];
  };
  return [...adapter.rules, ...adapter.externalRules].map((r) => r.seriesQuery);
}

/** Every series name a `/metrics` answer can carry (a histogram's _bucket, _count, _sum). */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_count', '_sum']) names.add(name + suffix);
  }
  return names;
}

it('reads metric names out of PromQL', () => {
  expect(
    metricNamesOf(
      'histogram_quantile(0.99, sum by (aggregator, le) (rate(ussd_hop_duration_seconds_bucket{le!="x"}[$__rate_interval]))) > 6 and up == 0',
    ),
  ).toEqual(['ussd_hop_duration_seconds_bucket', 'up']);
});

describe('the metrics deploy/ names, against a running gateway', () => {
  let gateway: Gateway;
  let redis: TestRedis;
  beforeAll(async () => {
    redis = testRedis('metric-names');
    gateway = await startTestGateway({ REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix });
  });
  afterAll(async () => {
    await gateway?.close();
    await redis.cleanup();
  });

  it.each([
    ['an alert rule', ruleExpressions],
    ['a dashboard panel', panelExpressions],
    ["an autoscaler's adapter rule", adapterExpressions],
  ])('every metric %s names is exported', async (_what, expressions) => {
    const exported = exportedNames(await (await fetch(`${gateway.url}/metrics`)).text());
    const named = new Set(expressions().flatMap(metricNamesOf));
    expect(named.size).toBeGreaterThan(1);
    expect([...named].filter((name) => !exported.has(name) && !NOT_OURS.has(name))).toEqual([]);
  });
});
