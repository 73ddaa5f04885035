import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Client } from '@elastic/elasticsearch';
import { createEsClient } from '../../../src/es/client.js';
import { indexReads } from '../../../src/search/index-reads.js';

// A cart lookup whose documents cannot be read (no shard copy answers: a node restarting, a red
// index) fails the read, so Degraded Mode answers it; it never answers the lines as unlisted.

let es: Client;
const alias = `${inject('runId')}_lookupshard-market`;
const red = `${alias}-vred`;

beforeAll(async () => {
  es = createEsClient(inject('elasticsearchUrl'), 30_000);
  await es.indices.create({
    index: red,
    settings: { number_of_shards: 1, number_of_replicas: 0, 'index.routing.allocation.require._name': 'no-such-node' },
    aliases: { [alias]: {} },
    wait_for_active_shards: 0,
  });
});

afterAll(async () => {
  await es?.indices.delete({ index: red }, { ignore: [404] });
  await es?.close();
});

describe('cart lookup when no shard copy answers', () => {
  it('fails the read with the cluster’s reason instead of answering unlisted lines', async () => {
    const lookup = indexReads(es, alias).lookup({ lines: [{ sellerId: 1, skuId: 2 }] });
    await expect(lookup).rejects.toThrow(/cart lookup documents failed: .*no_shard_available_action_exception/);
  });
});
