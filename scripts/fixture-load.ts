// Ops loader: `npm run fixture:load -- FILE` loads one fixture document (fixture-format.md) into
// DATABASE_URL in one transaction. Exit 0 and a summary on success; exit 1 with the first bad
// path on stderr when the file is refused (nothing is written then).
import { readFile } from 'node:fs/promises';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { FixtureError } from '../src/fixtures/errors.js';
import { loadFixture } from '../src/fixtures/load.js';
import { parseFixtureText } from '../src/fixtures/parse.js';
import { formatSummary } from '../src/fixtures/summary.js';

async function main(argv: string[]): Promise<number> {
  const file = argv.filter((a) => a !== '--')[0];
  if (!file || argv.includes('--help')) {
    console.error('usage: npm run fixture:load -- FILE');
    return 2;
  }
  const text = await readFile(file, 'utf8');
  const doc = parseFixtureText(text);
  const pool = createPool(loadEnv().DATABASE_URL, 2);
  try {
    const result = await loadFixture(pool, doc);
    console.log(formatSummary(file, result));
    return 0;
  } finally {
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof FixtureError) console.error(`fixture refused, nothing written: ${err.message}`);
    else console.error(`fixture load failed, nothing written: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
