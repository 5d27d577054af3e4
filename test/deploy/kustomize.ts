import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * Renders a kustomization the way `kubectl kustomize` does, for the features deploy/kubernetes
 * uses and no more (no kustomize binary is needed offline or in CI): `resources` (files and
 * directories with a kustomization.yaml), `labels` (metadata only), `namespace`, `images`
 * (newName, newTag) and `patches` by path as strategic merges, where maps merge and lists of
 * named items (containers, env, volumes) merge by `name`. A feature it does not know is refused,
 * so a manifest change cannot slip past the tests unrendered. test/deploy/manifests.test.ts
 * compares it with `kubectl kustomize` where kubectl is installed.
 */

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
} & Record<string, unknown>;

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'labels', 'namespace', 'images', 'patches']);

interface Kustomization {
  resources?: string[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string }[];
}

/** Every document of a YAML file, parsed. */
export function readYamlDocuments(path: string): unknown[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0].message}`);
    return doc.toJS() as unknown;
  });
}

/** The objects the kustomization in `dir` renders, in the order of its resources. */
export function kustomize(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const k = readYamlDocuments(file)[0] as Kustomization & Record<string, unknown>;
  const unknown = Object.keys(k).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new Error(`${file}: this renderer does not know ${unknown.join(', ')}`);

  let objects: K8sObject[] = [];
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    objects.push(
      ...(statSync(path).isDirectory() ? kustomize(path) : (readYamlDocuments(path) as K8sObject[])),
    );
  }
  for (const patch of k.patches ?? []) {
    for (const change of readYamlDocuments(resolve(dir, patch.path)) as K8sObject[]) {
      const index = objects.findIndex(
        (o) => o.kind === change.kind && o.metadata.name === change.metadata.name,
      );
      if (index < 0) throw new Error(`${patch.path}: no ${change.kind} ${change.metadata.name} to patch`);
      objects[index] = strategicMerge(objects[index], change) as K8sObject;
    }
  }
  for (const label of k.labels ?? []) {
    if (label.includeSelectors || label.includeTemplates)
      throw new Error(`${file}: labels with includeSelectors/includeTemplates are not rendered here`);
    objects = objects.map((o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { ...o.metadata.labels, ...label.pairs } },
    }));
  }
  if (k.namespace)
    objects = objects.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: k.namespace } }));
  for (const image of k.images ?? []) objects = objects.map((o) => withImage(o, image));
  return objects;
}

/** A strategic merge patch as far as these manifests need: maps merge, named items merge by name. */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(patch) && patch.every(isNamed) && base.every(isNamed)) {
    const merged = base.map((item) => {
      const change = patch.find((p) => p.name === item.name);
      return change ? strategicMerge(item, change) : item;
    });
    // As kustomize does: items new to the list come first, then the base's, merged in place.
    return [...patch.filter((p) => !base.some((item) => item.name === p.name)), ...merged];
  }
  if (isMap(base) && isMap(patch)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch))
      merged[key] = key in base ? strategicMerge(base[key], value) : value;
    return merged;
  }
  return patch;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNamed(value: unknown): value is { name: string } {
  return isMap(value) && typeof value.name === 'string';
}

function withImage(object: K8sObject, image: { name: string; newName?: string; newTag?: string }): K8sObject {
  const replace = (containers: unknown): unknown =>
    Array.isArray(containers)
      ? containers.map((c: { image?: string }) => {
          const [name, tag] = (c.image ?? '').split(':');
          if (name !== image.name) return c;
          const newTag = image.newTag ?? tag;
          return { ...c, image: `${image.newName ?? name}${newTag ? `:${newTag}` : ''}` };
        })
      : containers;
  const spec = podSpecOf(object);
  if (!spec) return object;
  const copy = structuredClone(object);
  const target = podSpecOf(copy)!;
  target.containers = replace(spec.containers);
  if (spec.initContainers) target.initContainers = replace(spec.initContainers);
  return copy;
}

/** The pod spec of a workload (Deployment, Job…), if it has one. */
export function podSpecOf(object: K8sObject): Record<string, unknown> | undefined {
  const spec = object.spec as { template?: { spec?: Record<string, unknown> } } | undefined;
  return spec?.template?.spec;
}

export const DEPLOY_DIR = resolve(dirname(__dirname), '..', 'deploy');
