import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { bodyPool, BulkError, serializeOps, writeOps, writeSerialized } from '../../../indexer/bulk.js';
import { createIndex } from '../../../indexer/index-admin.js';
import type { DocOp } from '../../../indexer/build-ops.js';
import type { IndexDoc } from '../../../src/search/documents/model.js';

// The bulk writer asks Elasticsearch for failures only (BULK_FILTER_PATH): a clean write and a
// delete of a missing document must pass, and any failed item must still fail the whole write.

let ctx: TestContext;
let index: string;
beforeAll(async () => {
  ctx = await createTestContext();
  index = ctx.index.concrete('bulk');
  await createIndex(ctx.es, index, { bulkLoad: false });
});
afterAll(async () => {
  await ctx.es.indices.delete({ index }).catch(() => undefined);
  await ctx.close();
});

const seller = (id: number, price: unknown) => ({ docType: 'seller', sellerId: id, sellerCode: `s${id}`, price }) as unknown as IndexDoc;

describe('writeSerialized', () => {
  it('passes a clean write and deletes of missing documents', async () => {
    const ops: DocOp[] = [
      { id: 'test:1', doc: seller(1, 100) },
      { id: 'test:missing', doc: null },
    ];
    await writeOps(ctx.es, index, ops);
    await ctx.es.indices.refresh({ index });
    expect((await ctx.es.get({ index, id: 'test:1' })).found).toBe(true);
  });

  it('fails the write when one item fails, naming the reason', async () => {
    const pool = bodyPool();
    const body = serializeOps(
      index,
      [
        { id: 'test:2', doc: seller(2, 5) },
        { id: 'test:bad', doc: seller(3, 'not a number') },
        { id: 'test:4', doc: seller(4, 6) },
      ],
      pool,
    );
    const err = await writeSerialized(ctx.es, body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BulkError);
    expect((err as Error).message).toMatch(/^bulk: 1 of 3 items failed; first \(index\): document_parsing_exception .*test:bad/);
  });
});
