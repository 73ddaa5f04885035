import type { Writable } from 'node:stream';
import { once } from 'node:events';
import type { Sample } from './generate.js';

// Streams a sample as one fixture-format JSON document: one row per line inside each array, so
// the file is diffable and nothing but the current row is held in memory.

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function writeArray(out: Writable, key: string, rows: Iterable<unknown>, last: boolean, onRow: () => void): Promise<void> {
  await write(out, `  ${JSON.stringify(key)}: [`);
  let first = true;
  for (const row of rows) {
    await write(out, `${first ? '\n' : ',\n'}    ${JSON.stringify(row)}`);
    first = false;
    onRow();
  }
  await write(out, `${first ? '' : '\n  '}]${last ? '\n' : ',\n'}`);
}

/** `orders` (fixture-format rows), when given, go last: the loader enters them after the rest. */
export async function writeSampleJson(
  out: Writable,
  sample: Sample,
  onRow: (table: string) => void = () => {},
  orders?: readonly unknown[],
): Promise<void> {
  await write(out, `{\n  "platform": ${JSON.stringify(sample.platform)},\n`);
  await writeArray(out, 'products', sample.products(), false, () => onRow('products'));
  await writeArray(out, 'skus', sample.skus(), false, () => onRow('skus'));
  await writeArray(out, 'sellers', sample.sellers(), false, () => onRow('sellers'));
  await writeArray(out, 'listings', sample.listings(), false, () => onRow('listings'));
  await writeArray(out, 'handoffStores', sample.handoffStores(), orders === undefined, () => onRow('handoffStores'));
  if (orders !== undefined) await writeArray(out, 'orders', orders, true, () => onRow('orders'));
  await write(out, '}\n');
}
