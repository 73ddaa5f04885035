import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { readFileSync } from 'node:fs';
import pg from 'pg';

// The servers the suite runs against are the real ones: Elasticsearch of the client's major
// (answering as Elasticsearch), PostgreSQL 15+.

describe('the real stack', () => {
  it('Elasticsearch identifies itself and matches the client major', async () => {
    const res = await fetch(`${inject('elasticsearchUrl')}/_nodes/_local?filter_path=nodes.*.version`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
    const body = (await res.json()) as { nodes: Record<string, { version: string }> };
    const version = Object.values(body.nodes)[0]!.version;
    const client = JSON.parse(readFileSync('node_modules/@elastic/elasticsearch/package.json', 'utf8')) as { version: string };
    expect(version.split('.')[0]).toBe(client.version.split('.')[0]);
  });

  it('PostgreSQL is 15 or newer', async () => {
    const c = new pg.Client({ connectionString: inject('databaseUrl') });
    await c.connect();
    const { rows } = await c.query(`SELECT current_setting('server_version_num')::int AS v`);
    await c.end();
    expect(rows[0].v).toBeGreaterThanOrEqual(150000);
  });
});
