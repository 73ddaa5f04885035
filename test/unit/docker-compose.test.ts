import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { ES_IMAGE } from '../support/es-image.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<
    string,
    { image?: string; build?: unknown; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }> }
  >;
};
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** The folders and files the Dockerfile copies into the image (the sources of its COPY lines, without a stage's `--from`). */
function copiedIntoImage(): string[] {
  return read('Dockerfile')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^COPY\s/i.test(l) && !/--from=/i.test(l))
    .flatMap((l) => {
      const args = l
        .split(/\s+/)
        .slice(1)
        .filter((a) => !a.startsWith('--'));
      return args.slice(0, -1).map((a) => a.replace(/^\.\//, '').replace(/\/$/, ''));
    });
}

/** Whether the image holds this repository path: under a copied source and not excluded by .dockerignore. */
function inImage(file: string, copied: readonly string[]): boolean {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
  return copied.some((c) => c === '.' || under(file, c)) && !ignored.some((i) => under(file, i));
}

/** The entry file an npm script runs with tsx (`tsx [flags] entry.ts`). */
function scriptEntry(script: string): string {
  const entry = scripts[script]?.split(/\s+/).find((w) => w.endsWith('.ts'));
  if (!entry) throw new Error(`npm script ${script} runs no TypeScript entry: ${scripts[script]}`);
  return entry;
}

/** The entry and every repository file it reaches through relative imports (.js specifiers are the .ts sources). */
function sourcesOf(entry: string): string[] {
  const rootDir = fileURLToPath(root);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.endsWith('.ts')) return;
    const text = read(file);
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const resolved = path.relative(rootDir, path.resolve(rootDir, path.dirname(file), m[1]!));
      const ts = resolved.replace(/\.js$/, '.ts');
      visit(existsSync(new URL(ts, root)) ? ts : resolved);
    }
  };
  visit(entry);
  return [...seen];
}

const major = (version: string) => Number(/(\d+)\./.exec(version)?.[1]);

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    const { $schema: _ignored, ...schema } = JSON.parse(read('test/fixtures/compose-spec.json')) as Record<string, unknown>;
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the schema refuses what the specification refuses', () => {
    const { $schema: _ignored, ...schema } = JSON.parse(read('test/fixtures/compose-spec.json')) as Record<string, unknown>;
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate({ services: { api: { imagee: 'x' } } })).toBe(false);
    expect(validate({ services: { api: { depends_on: { db: { condition: 'when_ready' } } } } })).toBe(false);
  });

  it('runs the same Elasticsearch as the tests, of the installed client major', () => {
    const image = compose.services.elasticsearch?.image ?? '';
    expect(image).toBe(ES_IMAGE);
    expect(image.startsWith('docker.elastic.co/elasticsearch/elasticsearch:')).toBe(true);
    const client = createRequire(import.meta.url)('@elastic/elasticsearch/package.json') as { version: string };
    const imageVersion = image.split(':')[1] ?? '';
    expect(major(imageVersion)).toBe(major(client.version));
    expect(major(ES_IMAGE.split(':')[1] ?? '')).toBe(major(client.version));
  });

  it('has postgres 15, a one-shot migrate step, and api/indexer wired to the services', () => {
    const s = compose.services;
    expect(s.postgres?.image).toBe('postgres:15');
    expect(s.migrate?.command).toEqual(['npm', 'run', 'migrate']);
    for (const name of ['api', 'indexer'] as const) {
      const svc = s[name]!;
      expect(svc.build).toBeDefined();
      expect(svc.command).toEqual(['npm', 'run', name]);
      expect(svc.environment?.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(svc.environment?.ELASTICSEARCH_URL).toBe('http://elasticsearch:9200');
      expect(svc.depends_on?.migrate?.condition).toBe('service_completed_successfully');
      expect(svc.depends_on?.elasticsearch?.condition).toBe('service_healthy');
    }
  });

  it('runs the webhook dispatcher from the same image once the migration is done', () => {
    const d = compose.services.dispatcher;
    expect(d?.build).toBeDefined();
    expect(d?.command).toEqual(['npm', 'run', 'webhooks']);
    expect(scriptEntry('webhooks')).toBe('dispatcher/main.ts');
    expect(d?.environment?.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(d?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });
});

describe('Dockerfile', () => {
  it('copies the dispatcher into the image', () => {
    expect(copiedIntoImage()).toContain('dispatcher');
    expect(inImage('dispatcher/main.ts', copiedIntoImage())).toBe(true);
  });

  it('holds every source file each compose service runs (the npm script entry and all it imports)', () => {
    const copied = copiedIntoImage();
    const built = Object.entries(compose.services).filter(([, svc]) => svc.build !== undefined);
    expect(built.map(([name]) => name).sort()).toEqual(['api', 'dispatcher', 'indexer', 'migrate']);
    for (const [name, svc] of built) {
      const [npm, run, script] = svc.command ?? [];
      expect([npm, run], name).toEqual(['npm', 'run']);
      const sources = sourcesOf(scriptEntry(script!));
      expect(sources.length, name).toBeGreaterThan(3);
      expect(
        sources.filter((f) => !inImage(f, copied)),
        `${name}: sources missing from the image`,
      ).toEqual([]);
    }
  });

  it('the check notices a folder the image lacks', () => {
    const withoutDispatcher = copiedIntoImage().filter((c) => c !== 'dispatcher');
    expect(sourcesOf('dispatcher/main.ts').filter((f) => !inImage(f, withoutDispatcher))).toContain('dispatcher/loop.ts');
  });
});
