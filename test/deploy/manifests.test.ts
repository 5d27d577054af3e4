import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ussdAdapters } from '../../src/ussd/aggregators/index';
import { checkCallbacksGuarded, EnvSchema, loadConfig } from '../../src/config';
import { DEPLOY_DIR, kustomize, podSpecOf, readYamlDocuments, type K8sObject } from './kustomize';

/**
 * deploy/kubernetes: the base and the production overlay rendered, every object valid against
 * the Kubernetes API's schemas (kubernetes-models), the operational rules an operator expects
 * (probes on separate endpoints, requests, read-only root, the image's non-root user, a
 * disruption budget and an autoscaler per Deployment, the migration Job), and every variable
 * they set one the config schema knows, accepted by loadConfig as production.
 */

const KUBERNETES = join(DEPLOY_DIR, 'kubernetes');
const ROOT = join(DEPLOY_DIR, '..');
const SECRET_NAME = 'ussd-gateway-secrets';
const rendered = {
  base: kustomize(join(KUBERNETES, 'base')),
  production: kustomize(join(KUBERNETES, 'overlays/production')),
};

interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: unknown }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: Record<string, unknown>;
}

const of = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const containersOf = (o: K8sObject) => (podSpecOf(o)?.containers ?? []) as Container[];
const labelsOf = (o: K8sObject) =>
  (o.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The environment a container gets: its ConfigMaps' data, then its env (secrets as placeholders). */
function environmentOf(objects: K8sObject[], container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const map = of(objects, 'ConfigMap').find((m) => m.metadata.name === from.configMapRef?.name);
    if (!map) throw new Error(`${container.name}: no ConfigMap ${from.configMapRef?.name}`);
    Object.assign(env, map.data);
  }
  for (const variable of container.env ?? [])
    env[variable.name] = variable.valueFrom?.secretKeyRef
      ? placeholderSecret(variable.valueFrom.secretKeyRef.key)
      : (variable.value ?? '');
  return env;
}

/** What an operator's Secret would hold, in the form each variable needs. */
function placeholderSecret(key: string): string {
  if (key === 'DATABASE_URL') return 'postgres://gateway@postgres:5432/gateway';
  if (key === 'REDIS_URL') return 'redis://redis:6379';
  return `placeholder-${key.toLowerCase()}-0123456789abcdef0123456789`;
}

describe.each(Object.entries(rendered))('deploy/kubernetes %s', (_name, objects) => {
  it('is valid against the Kubernetes API schemas (kubernetes-models)', () => {
    const result = spawnSync(process.execPath, [join(__dirname, 'validate-k8s.mjs')], {
      cwd: ROOT,
      input: JSON.stringify(objects),
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(objects.map(() => null));
  });

  it('has the gateway and worker Deployments, a Service, the settings, the migration Job, a budget and an autoscaler each', () => {
    expect(of(objects, 'Deployment').map((o) => o.metadata.name)).toEqual([
      'ussd-gateway',
      'ussd-gateway-worker',
    ]);
    expect(of(objects, 'ConfigMap').map((o) => o.metadata.name)).toEqual(['ussd-gateway-settings']);
    expect(of(objects, 'Job')).toHaveLength(1);
    // No secret in the repository: only references to one made outside it.
    expect(of(objects, 'Secret')).toEqual([]);
    for (const deployment of of(objects, 'Deployment')) {
      const labels = labelsOf(deployment);
      const budgets = of(objects, 'PodDisruptionBudget').filter((p) =>
        selects(
          (p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
          labels,
        ),
      );
      expect(budgets).toHaveLength(1);
      const scalers = of(objects, 'HorizontalPodAutoscaler').filter(
        (h) =>
          (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === deployment.metadata.name,
      );
      expect(scalers).toHaveLength(1);
      // A metric that means load beside CPU: hops answered, or jobs waiting.
      const metrics = (scalers[0].spec as { metrics: { type: string }[] }).metrics.map((m) => m.type);
      expect(metrics).toEqual(expect.arrayContaining(['Resource']));
      expect(metrics.some((type) => type === 'Pods' || type === 'External')).toBe(true);
      const { selector } = deployment.spec as { selector: { matchLabels: Record<string, string> } };
      expect(selects(selector.matchLabels, labels)).toBe(true);
    }
    const service = of(objects, 'Service').find((s) => s.metadata.name === 'ussd-gateway')!;
    const gateway = of(objects, 'Deployment').find((d) => d.metadata.name === 'ussd-gateway')!;
    const spec = service.spec as { selector: Record<string, string>; ports: { targetPort: string }[] };
    expect(selects(spec.selector, labelsOf(gateway))).toBe(true);
    expect(containersOf(gateway)[0].ports?.map((p) => p.name)).toContain(spec.ports[0].targetPort);
  });

  it('every container: requests, liveness and readiness on separate endpoints, read-only root, the image user', () => {
    // The Dockerfile runs as `node` (uid 1000 in the node images).
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^USER node$/m);
    for (const workload of [...of(objects, 'Deployment'), ...of(objects, 'Job')]) {
      const pod = podSpecOf(workload)!;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of containersOf(workload)) {
        expect(c.resources?.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
        expect(c.resources?.limits?.memory).toBeDefined();
        expect(c.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        // The image's entry points exist in the source the build compiles.
        const entry = c.command?.find((arg) => arg.startsWith('dist/'));
        expect(entry && existsSync(join(ROOT, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(
          true,
        );
        if (workload.kind !== 'Deployment') continue;
        expect(c.livenessProbe?.httpGet?.path).toBe('/livez');
        expect(c.startupProbe?.httpGet?.path).toBe('/livez');
        expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
        for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe])
          expect(c.ports?.map((p) => p.name)).toContain(probe?.httpGet?.port);
      }
    }
  });

  it('the Job runs what npm run migrate runs', () => {
    const migrate = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts.migrate;
    const job = of(objects, 'Job')[0];
    const [container] = containersOf(job);
    expect(migrate).toContain(`node ${container.command!.slice(1).join(' ')}`);
    expect(container.env?.map((e) => e.name)).toEqual(['DATABASE_URL']);
  });

  it('sets only variables the config schema knows, secrets by reference, and production accepts them', () => {
    const known = new Set(Object.keys(EnvSchema.shape));
    for (const map of of(objects, 'ConfigMap'))
      expect(Object.keys(map.data as object).filter((key) => !known.has(key))).toEqual([]);
    for (const workload of [...of(objects, 'Deployment'), ...of(objects, 'Job')])
      for (const c of containersOf(workload)) {
        expect((c.env ?? []).map((e) => e.name).filter((name) => !known.has(name))).toEqual([]);
        // Every env entry is a reference into the one Secret, named as its variable; no literal values.
        for (const variable of c.env ?? [])
          expect(variable.valueFrom?.secretKeyRef).toEqual({ name: SECRET_NAME, key: variable.name });
        expect((c.envFrom ?? []).filter((from) => !from.configMapRef)).toEqual([]);
      }
  });
});

it('production: the gateway and the worker get a configuration loadConfig accepts as production', () => {
  const objects = rendered.production;
  for (const deployment of of(objects, 'Deployment')) {
    const env = environmentOf(objects, containersOf(deployment)[0]);
    expect(env.NODE_ENV).toBe('production');
    const config = loadConfig(env);
    expect(config.embeddedSandbox).toBe(false);
    expect(config.gatewayWorkers).toBe(false);
    checkCallbacksGuarded(config, ussdAdapters());
  }
  const gateway = containersOf(of(objects, 'Deployment')[0])[0];
  expect(gateway.image).toBe('registry.example.com/ussd-gateway:0.1.0');
  expect(new Set(objects.map((o) => o.metadata.namespace))).toEqual(new Set(['ussd-gateway']));
});

it('every manifest file is part of a kustomization (nothing lies unrendered)', () => {
  const named = (dir: string): string[] => {
    const k = readYamlDocuments(join(dir, 'kustomization.yaml'))[0] as {
      resources?: string[];
      patches?: { path: string }[];
    };
    return [...(k.resources ?? []), ...(k.patches ?? []).map((p) => p.path), 'kustomization.yaml'].filter(
      (entry) => entry.endsWith('.yaml'),
    );
  };
  for (const dir of ['base', 'overlays/production'])
    expect(readdirSync(join(KUBERNETES, dir)).sort()).toEqual(named(join(KUBERNETES, dir)).sort());
});

/** Where kubectl is installed, its kustomize renders what the renderer of the tests renders. */
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
(kubectl ? it : it.skip)('matches kubectl kustomize', () => {
  for (const [name, objects] of Object.entries(rendered)) {
    const dir = join(KUBERNETES, name === 'base' ? 'base' : 'overlays/production');
    const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    const theirs = readYamlDocumentsFromText(text);
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    expect(new Map(theirs.map((o) => [key(o), o]))).toEqual(new Map(objects.map((o) => [key(o), o])));
  }
});

function readYamlDocumentsFromText(text: string): K8sObject[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseAllDocuments } = require('yaml') as typeof import('yaml');
  return parseAllDocuments(text).map((doc) => doc.toJS() as K8sObject);
}
