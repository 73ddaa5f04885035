import { describe, expect, it } from 'vitest';
import { createEsClient, esNodeUrls, failoverRetries } from '../../../src/es/client.js';

describe('the Elasticsearch client on a list of nodes', () => {
  it('puts every node of ELASTICSEARCH_URL in its pool, and a request may try each of them once', async () => {
    expect(esNodeUrls(' http://a:9200,http://b:9200 ,, http://c:9200')).toEqual(['http://a:9200', 'http://b:9200', 'http://c:9200']);
    const cluster = createEsClient('http://127.0.0.1:9201,http://127.0.0.1:9202,http://127.0.0.1:9203');
    expect(cluster.connectionPool.connections.map((c) => c.url.port)).toEqual(['9201', '9202', '9203']);
    expect(failoverRetries(cluster)).toBe(2);
    const single = createEsClient('http://127.0.0.1:9201');
    expect(failoverRetries(single)).toBe(0);
    await Promise.all([cluster.close(), single.close()]);
  });
});
