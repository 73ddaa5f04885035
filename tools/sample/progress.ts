import type { SampleSizes } from './model.js';
import type { Progress, TableStat } from './pg-load.js';

// Progress on stderr, at most once a second: rows so far, percentage, rows/s.

/** The sizes, and the orders of the run. */
type Expected = SampleSizes & { orders?: number };

const expected = (sizes: Expected, table: string): number | undefined =>
  ({ products: sizes.products, skus: sizes.skus, sellers: sizes.sellers, listings: sizes.listings, orders: sizes.orders })[table];

export function progressReporter(sizes: Expected, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Progress & { finish(): void } {
  let table = '';
  let count = 0;
  let tableStarted = performance.now();
  let lastReport = performance.now();
  let reported = false;
  const rate = (n: number, ms: number) => Math.round(n / Math.max(ms / 1000, 0.001));
  const report = () => {
    const total = expected(sizes, table);
    const pct = total ? ` (${Math.floor((100 * count) / total)}%)` : '';
    log(`[sample] ${table}: ${count}${total ? `/${total}` : ''}${pct}, ${rate(count, performance.now() - tableStarted)} rows/s`);
  };
  return {
    row(t: string) {
      if (t !== table) {
        table = t;
        reported = false;
        count = 0;
        tableStarted = performance.now();
      }
      count++;
      // Checking the clock every 256 rows keeps the hot loop cheap (this runs once per row loaded).
      if ((count & 255) === 0 && performance.now() - lastReport >= 1000) {
        lastReport = performance.now();
        report();
      }
    },
    done(stat: TableStat) {
      reported = true;
      const copy = stat.copyMs === undefined ? '' : ` (COPY ${stat.copyMs} ms, upsert ${stat.ms - stat.copyMs} ms)`;
      log(`[sample] ${stat.table}: ${stat.rows} rows (${stat.written} written) in ${stat.ms} ms${copy}, ${rate(stat.rows, stat.ms)} rows/s`);
    },
    finish() {
      if (table && !reported) report();
    },
  };
}
