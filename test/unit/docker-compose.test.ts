import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
});
