import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOY_DIR } from './kustomize';

/** deploy/grafana/ussd-gateway.json imports as a Grafana dashboard: what an import needs, laid out. */

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string }[];
}

const dashboard = JSON.parse(readFileSync(join(DEPLOY_DIR, 'grafana/ussd-gateway.json'), 'utf8')) as {
  uid: string;
  title: string;
  templating: { list: { name: string; type: string }[] };
  panels: Panel[];
};

it('has a uid, a Prometheus datasource variable every panel uses, and a query in each panel', () => {
  expect(dashboard.uid).toBe('ussd-gateway');
  expect(dashboard.templating.list).toContainEqual(
    expect.objectContaining({ name: 'datasource', type: 'datasource' }),
  );
  const panels = dashboard.panels.filter((p) => p.type !== 'row');
  expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
  for (const panel of panels) {
    expect([panel.title, panel.datasource]).toEqual([
      panel.title,
      { type: 'prometheus', uid: '${datasource}' },
    ]);
    expect(panel.targets?.length).toBeGreaterThan(0);
    expect(new Set(panel.targets!.map((t) => t.refId)).size).toBe(panel.targets!.length);
  }
  // What the issue asks to see.
  const titles = dashboard.panels.map((p) => p.title).join('\n');
  for (const topic of [
    /aggregator/,
    /latency/i,
    /Purchases by state/,
    /Payments by outcome/,
    /Delivery reports/,
    /queue/i,
    /debit account balance/,
  ])
    expect(titles).toMatch(topic);
});

it('lays the panels out on the 24-column grid without overlaps', () => {
  const cells = new Set<string>();
  for (const { gridPos: g, title } of dashboard.panels) {
    expect([title, g.x + g.w <= 24]).toEqual([title, true]);
    for (let x = g.x; x < g.x + g.w; x++)
      for (let y = g.y; y < g.y + g.h; y++) {
        expect([title, cells.has(`${x},${y}`)]).toEqual([title, false]);
        cells.add(`${x},${y}`);
      }
  }
});
