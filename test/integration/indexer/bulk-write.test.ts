import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { bodyPool, BulkError, serializeOps, writeSerialized } from '../../../indexer/bulk.js';
import { createIndex } from '../../../indexer/index-admin.js';
import { orderedWriter } from '../../../indexer/ordered-writer.js';
import { MASS_REFUSAL_MIN, writeOrQuarantine } from '../../../indexer/quarantine.js';
import { stepTimes } from '../../../indexer/step-times.js';
import { quarantinedDocuments } from '../../../src/db/index-quarantine.js';
import type { DocOp } from '../../../indexer/build-ops.js';
import type { IndexDoc } from '../../../src/search/documents/model.js';

// The bulk writer asks Elasticsearch for failures only (BULK_FILTER_PATH): a clean write and a
// delete of a missing document must pass; a document refused for a reason of its own is returned
// and the rest written; an item the cluster cannot take now (a write block) fails the whole write.
// The live indexer's ordered writer quarantines a refused document within its unit, and a later
// unit naming the document waits for that and releases it once its write is accepted.

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
const writeOps = (ops: DocOp[]) => writeSerialized(ctx.es, serializeOps(index, ops));
/** One unit of one body, as the ordered writer hands it over. */
const unit = (ops: DocOp[]) => [[serializeOps(index, ops)], ops.map((o) => o.id)] as const;
const found = async (id: string) => (await ctx.es.get({ index, id }, { ignore: [404] })).found;

describe('writeSerialized', () => {
  it('passes a clean write and deletes of missing documents', async () => {
    const ops: DocOp[] = [
      { id: 'test:1', doc: seller(1, 100) },
      { id: 'test:missing', doc: null },
    ];
    await writeOps(ops);
    await ctx.es.indices.refresh({ index });
    expect((await ctx.es.get({ index, id: 'test:1' })).found).toBe(true);
  });

  it('returns a refused document, naming it and the reason, and writes the rest', async () => {
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
    const refused = await writeSerialized(ctx.es, body);
    expect(refused).toEqual([{ id: 'test:bad', type: 'document_parsing_exception', reason: expect.stringContaining('[price]') }]);
    await ctx.es.indices.refresh({ index });
    expect((await ctx.es.get({ index, id: 'test:2' })).found).toBe(true);
    expect((await ctx.es.get({ index, id: 'test:4' })).found).toBe(true);
  });

  it('fails the write while the index refuses writes, refusing no document', async () => {
    await ctx.es.indices.putSettings({ index, settings: { 'index.blocks.write': true } });
    try {
      const err = await writeOps([
        { id: 'test:5', doc: seller(5, 1) },
        { id: 'test:bad2', doc: seller(6, 'not a number') },
      ]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BulkError);
      expect((err as Error).message).toMatch(/^bulk: 2 of 2 items failed; first \(index\): cluster_block_exception/);
    } finally {
      await ctx.es.indices.putSettings({ index, settings: { 'index.blocks.write': false } });
    }
  });

  it('quarantines a refused document and deletes its previous version; an index refusing a whole request fails it instead', async () => {
    await writeOps([{ id: 'test:q', doc: seller(7, 1) }]);
    const q = await writeOrQuarantine(
      ctx.pool,
      ctx.es,
      index,
      ...unit([
        { id: 'test:q', doc: seller(7, 'not a number') },
        { id: 'test:ok', doc: seller(8, 2) },
      ]),
    );
    expect(q).toEqual({ quarantined: 1, released: 0 });
    expect(await found('test:q')).toBe(false);
    expect(await found('test:ok')).toBe(true);
    expect((await quarantinedDocuments(ctx.pool)).map((r) => r.id)).toEqual(['test:q']);
    expect(await writeOrQuarantine(ctx.pool, ctx.es, index, ...unit([{ id: 'test:q', doc: seller(7, 3) }]))).toEqual({ quarantined: 0, released: 1 });
    expect(await quarantinedDocuments(ctx.pool)).toEqual([]);

    const all = Array.from({ length: MASS_REFUSAL_MIN }, (_, i) => ({ id: `test:m${i}`, doc: seller(100 + i, 'not a number') }));
    await expect(writeOrQuarantine(ctx.pool, ctx.es, index, ...unit(all))).rejects.toThrow(BulkError);
    expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
  });
});

describe('orderedWriter', () => {
  it('quarantines a refused document within its unit; a later unit, even a small lane’s, releases it once accepted', async () => {
    const writer = orderedWriter(ctx.pool, ctx.es, index, stepTimes());
    // Cards first, as chunkOps orders them: a refused card beside accepted documents of another body.
    await writer.write(
      [serializeOps(index, [{ id: 'test:card', doc: seller(20, 'not a number') }]), serializeOps(index, [{ id: 'test:own', doc: seller(21, 1) }])],
      ['test:card', 'test:own'],
      1,
    );
    // Names the refused document: waits for its unit, quarantine row included, then releases it.
    await writer.write([serializeOps(index, [{ id: 'test:card', doc: seller(20, 5) }])], ['test:card'], 0, true);
    await writer.flush();
    expect(writer.counts()).toEqual({ quarantined: 1, released: 1 });
    expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
    expect((await ctx.es.get<{ price: number }>({ index, id: 'test:card' }))._source?.price).toBe(5);
    expect(await found('test:own')).toBe(true);

    // And the other way round: written, then refused: hidden and quarantined, nothing thrown.
    await writer.write([serializeOps(index, [{ id: 'test:own', doc: seller(21, 'still not a number') }])], ['test:own']);
    await writer.flush();
    expect(writer.counts()).toEqual({ quarantined: 2, released: 1 });
    expect(await found('test:own')).toBe(false);
    expect((await quarantinedDocuments(ctx.pool)).map((r) => r.id)).toEqual(['test:own']);
  });

  it('fails, quarantining nothing, while the index refuses writes', async () => {
    await ctx.pool.query('DELETE FROM index_quarantine');
    await ctx.es.indices.putSettings({ index, settings: { 'index.blocks.write': true } });
    try {
      const writer = orderedWriter(ctx.pool, ctx.es, index, stepTimes());
      await writer.write([serializeOps(index, [{ id: 'test:blocked', doc: seller(22, 'not a number') }])], ['test:blocked']);
      await expect(writer.flush()).rejects.toThrow(BulkError);
      expect(writer.counts()).toEqual({ quarantined: 0, released: 0 });
      expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
    } finally {
      await ctx.es.indices.putSettings({ index, settings: { 'index.blocks.write': false } });
    }
  });
});
