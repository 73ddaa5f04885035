import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../../src/config/env.js';
import { esNodeUrls } from '../../../src/es/client.js';

describe('cluster settings in the environment', () => {
  it('takes one node URL or a comma-separated list of them', () => {
    expect(loadEnv({}).ELASTICSEARCH_URL).toBe('http://127.0.0.1:9209');
    const list = 'http://127.0.0.1:9201, http://127.0.0.1:9202,https://es-3.internal:9200';
    expect(loadEnv({ ELASTICSEARCH_URL: list }).ELASTICSEARCH_URL).toBe(list);
  });

  it('refuses a malformed node, naming the variable and the node', () => {
    expect(() => loadEnv({ ELASTICSEARCH_URL: 'http://127.0.0.1:9201,127.0.0.1:9202' })).toThrow(
      /ELASTICSEARCH_URL: '127\.0\.0\.1:9202' is not a node URL/,
    );
    expect(() => loadEnv({ ELASTICSEARCH_URL: 'http://ok:9200,ftp://x:21' })).toThrow(/ELASTICSEARCH_URL: 'ftp:\/\/x:21' is not a node URL/);
    expect(() => loadEnv({ ELASTICSEARCH_URL: ' , ' })).toThrow(/ELASTICSEARCH_URL: at least one node URL/);
  });

  it('a malformed node URL is named without its user and password', () => {
    let message = '';
    try {
      loadEnv({ ELASTICSEARCH_URL: 'http://elastic:s3cret-Pa55@:9200' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/ELASTICSEARCH_URL: 'http:\/\/\*\*\*@:9200' is not a node URL/);
    expect(message).not.toContain('s3cret');
    expect(message).not.toContain('elastic:');
  });

  it('a comma in a password stays in its URL', () => {
    expect(esNodeUrls('http://elastic:pa,ss@es-1:9200')).toEqual(['http://elastic:pa,ss@es-1:9200']);
    expect(esNodeUrls('https://u:a,b,c@es-1:9200, https://u:d,e@es-2:9200,http://es-3:9200')).toEqual([
      'https://u:a,b,c@es-1:9200',
      'https://u:d,e@es-2:9200',
      'http://es-3:9200',
    ]);
    expect(loadEnv({ ELASTICSEARCH_URL: 'http://elastic:pa,ss@es-1:9200' }).ELASTICSEARCH_URL).toBe('http://elastic:pa,ss@es-1:9200');
  });

  it('takes shards and replicas from INDEX_SHARDS and INDEX_REPLICAS: 1 and 0 by default, shards >= 1, replicas >= 0', () => {
    expect(loadEnv({})).toMatchObject({ INDEX_SHARDS: 1, INDEX_REPLICAS: 0 });
    expect(loadEnv({ INDEX_SHARDS: '3', INDEX_REPLICAS: '2' })).toMatchObject({ INDEX_SHARDS: 3, INDEX_REPLICAS: 2 });
    expect(() => loadEnv({ INDEX_SHARDS: '0' })).toThrow(/INDEX_SHARDS: at least 1/);
    expect(() => loadEnv({ INDEX_REPLICAS: '-1' })).toThrow(/INDEX_REPLICAS: at least 0/);
    expect(() => loadEnv({ INDEX_REPLICAS: 'two' })).toThrow(/INDEX_REPLICAS/);
  });
});
