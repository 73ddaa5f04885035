import { once } from 'node:events';
import { from as copyFrom } from 'pg-copy-streams';
import type { PoolClient } from './pool.js';

// COPY ... FROM STDIN in text format, streamed from an iterable: the fastest way to get millions
// of rows into PostgreSQL without building them all in memory. Used by bulk loads, which COPY into
// a temporary staging table and then upsert from it with ordinary set-based SQL.

export type CopyValue = string | number | boolean | null;

/** Rows streamed into the staging table, and rows the upsert actually wrote. */
export interface BulkCount {
  copied: number;
  written: number;
  copyMs: number;
}

export function* mapRows<T, U>(rows: Iterable<T>, f: (row: T) => U): Generator<U> {
  for (const row of rows) yield f(row);
}

/** One value in COPY text format: \N for null, backslash escapes for the special characters. */
export function copyText(v: CopyValue): string {
  if (v === null) return '\\N';
  if (typeof v !== 'string') return String(v);
  return v.replace(/[\\\t\n\r]/g, (ch) => (ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r'));
}

/** Streams rows into `table (columns)`; returns the row count. onRow is called after each row. */
export async function copyRows(
  c: PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyValue[]>,
  onRow: () => void = () => {},
): Promise<number> {
  const stream = c.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  done.catch(() => undefined); // observed below; avoids an unhandled rejection while still writing
  let n = 0;
  let buffer = '';
  try {
    for (const row of rows) {
      buffer += row.map(copyText).join('\t') + '\n';
      n++;
      onRow();
      // Batch rows into ~64 KiB writes: one write per row costs more than the encoding.
      if (buffer.length >= 65_536) {
        const ok = stream.write(buffer);
        buffer = '';
        if (!ok) await Promise.race([once(stream, 'drain'), done]);
      }
    }
    stream.end(buffer);
  } catch (err) {
    stream.destroy(err as Error);
    throw err;
  }
  await done;
  return n;
}

/** Times the COPY half of a bulk load: [result, elapsed ms]. */
export async function timedCopy(run: () => Promise<number>): Promise<[number, number]> {
  const started = performance.now();
  const n = await run();
  return [n, Math.round(performance.now() - started)];
}

/** A temporary table dropped at commit, for COPY-then-upsert. */
export async function createStage(c: PoolClient, name: string, columnsDdl: string): Promise<void> {
  await c.query(`CREATE TEMP TABLE ${name} (${columnsDdl}) ON COMMIT DROP`);
}
