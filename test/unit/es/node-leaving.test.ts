import { describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, errors } from '@elastic/elasticsearch';
import { isNodeLeaving, readRetryingLeavingNode } from '../../../src/es/node-leaving.js';

// What a node leaving the cluster answers, and the one retry of a read on another node.

function responseError(body: unknown, statusCode = 500, connection?: { id: string }): Error {
  return new errors.ResponseError({
    body,
    statusCode,
    headers: {},
    warnings: null,
    meta: { connection: connection && { id: connection.id } },
  } as unknown as ConstructorParameters<typeof errors.ResponseError>[0]);
}

const nodeClosedSearch = {
  error: {
    root_cause: [{ type: 'node_closed_exception', reason: 'node closed {es-2}{aB3}' }],
    type: 'search_phase_execution_exception',
    reason: 'all shards failed',
    failed_shards: [{ shard: 0, index: 'mp-market-1', reason: { type: 'node_closed_exception', reason: 'node closed {es-2}{aB3}' } }],
  },
  status: 500,
};

describe('isNodeLeaving', () => {
  it('a search failed by node_closed, a node shutting down, a dropped connection: leaving', () => {
    expect(isNodeLeaving(responseError(nodeClosedSearch))).toBe(true);
    expect(isNodeLeaving(responseError({ error: { type: 'illegal_state_exception', reason: 'node is shutting down' }, status: 500 }))).toBe(true);
    expect(isNodeLeaving(new errors.ConnectionError('read ECONNRESET'))).toBe(true);
    // An _msearch item's or _mget doc's error, carried as the cause of the read's error.
    expect(isNodeLeaving(new Error('product page query failed', { cause: nodeClosedSearch.error }))).toBe(true);
    expect(
      isNodeLeaving(new Error('cart lookup documents failed', { cause: { type: 'node_disconnected_exception', reason: '[es-2] disconnected' } })),
    ).toBe(true);
  });

  it('a bad query, a missing index, a red index, a timeout and plain errors: not leaving', () => {
    expect(isNodeLeaving(responseError({ error: { type: 'parsing_exception', reason: 'unknown query [nope]' }, status: 400 }, 400))).toBe(false);
    expect(isNodeLeaving(responseError({ error: { type: 'index_not_found_exception', reason: 'no such index [x]' }, status: 404 }, 404))).toBe(false);
    expect(
      isNodeLeaving(
        responseError({
          error: { type: 'search_phase_execution_exception', reason: 'all shards failed', root_cause: [{ type: 'no_shard_available_action_exception' }] },
        }),
      ),
    ).toBe(false);
    expect(isNodeLeaving(new errors.TimeoutError('Request timed out'))).toBe(false);
    expect(isNodeLeaving(new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200'))).toBe(false);
    expect(isNodeLeaving(new Error('product page query failed', { cause: { type: 'parsing_exception', reason: 'x' } }))).toBe(false);
    expect(isNodeLeaving('node closed')).toBe(false);
  });
});

describe('readRetryingLeavingNode', () => {
  const cluster = () => new Client({ nodes: ['http://127.0.0.1:1', 'http://127.0.0.1:2', 'http://127.0.0.1:3'] });

  it('a read answered node_closed is asked once more, with the node that answered marked dead', async () => {
    const es = cluster();
    const leaving = es.connectionPool.connections[1]!;
    const weight = (leaving as unknown as { weight: number }).weight;
    let calls = 0;
    const out = await readRetryingLeavingNode(es, async () => {
      calls++;
      if (calls === 1) throw responseError(nodeClosedSearch, 500, leaving);
      return 'answer';
    });
    expect({ out, calls }).toEqual({ out: 'answer', calls: 2 });
    expect((leaving as unknown as { weight: number }).weight).toBeLessThan(weight);
    await es.close();
  });

  it('a read whose connection failed on every try of the client (refused, reset) is asked once more, that node marked dead', async () => {
    // The client's pool may hand every retry of a request to the node that just went down: the
    // read then fails with ECONNREFUSED while the other nodes answer.
    const es = cluster();
    const gone = es.connectionPool.connections[2]!;
    for (const message of ['connect ECONNREFUSED 127.0.0.1:3', 'read ECONNRESET']) {
      const refused = new errors.ConnectionError(message, { meta: { connection: { id: gone.id } } } as unknown as ConstructorParameters<
        typeof errors.ConnectionError
      >[1]);
      const before = (gone as unknown as { weight: number }).weight;
      let calls = 0;
      const out = await readRetryingLeavingNode(es, async () => {
        calls++;
        if (calls === 1) throw refused;
        return 'answer';
      });
      expect({ message, out, calls }).toEqual({ message, out: 'answer', calls: 2 });
      expect((gone as unknown as { weight: number }).weight).toBeLessThan(before);
    }
    await es.close();
  });

  it('the second try leaves the failed node out, however the pool would pick next', async () => {
    // One node answers, the other refuses: without leaving it out, about half the second tries of
    // a client without retries of its own would go back to the refusing node.
    const answering = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
      res.end(JSON.stringify({ cluster_name: 'answering' }));
    });
    await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
    const port = (answering.address() as AddressInfo).port;
    const es = new Client({ nodes: [`http://127.0.0.1:${port}`, 'http://127.0.0.1:1'], maxRetries: 0 });
    const refusing = es.connectionPool.connections[1]!;
    const refused = new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:1', {
      meta: { connection: { id: refusing.id } },
    } as unknown as ConstructorParameters<typeof errors.ConnectionError>[1]);
    try {
      for (let i = 0; i < 20; i++) {
        let calls = 0;
        const out = await readRetryingLeavingNode(es, async (client) => {
          if (calls++ === 0) throw refused;
          return (await client.info()).cluster_name;
        });
        expect(out).toBe('answering');
      }
    } finally {
      await es.close();
      await new Promise((r) => answering.close(r));
    }
  });

  it('a timeout is not asked again: a hung cluster must not cost twice the wait', async () => {
    const es = cluster();
    let calls = 0;
    await expect(
      readRetryingLeavingNode(es, async () => {
        calls++;
        throw new errors.TimeoutError('Request timed out');
      }),
    ).rejects.toThrow('Request timed out');
    expect(calls).toBe(1);
    await es.close();
  });

  it('only once: a second node_closed fails the read, and other errors are not retried', async () => {
    const es = cluster();
    let calls = 0;
    await expect(
      readRetryingLeavingNode(es, async () => {
        calls++;
        throw responseError(nodeClosedSearch);
      }),
    ).rejects.toThrow();
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      readRetryingLeavingNode(es, async () => {
        calls++;
        throw responseError({ error: { type: 'parsing_exception', reason: 'x' } }, 400);
      }),
    ).rejects.toThrow();
    expect(calls).toBe(1);
    await es.close();
  });

  it('on one node there is no other to ask: no retry', async () => {
    const es = new Client({ node: 'http://127.0.0.1:1' });
    let calls = 0;
    await expect(
      readRetryingLeavingNode(es, async () => {
        calls++;
        throw responseError(nodeClosedSearch);
      }),
    ).rejects.toThrow();
    expect(calls).toBe(1);
    await es.close();
  });
});
