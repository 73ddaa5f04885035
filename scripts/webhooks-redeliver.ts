// npm run webhooks:redeliver -- --seller CODE [--since ISO] [--failed]
// Puts a seller's failed events (--failed), or all its finished ones (failed, delivered, and those
// written while it had no webhook), back in the webhook queue with a fresh retry schedule: for a
// Platform that was down longer than the retry window. --since keeps events created at or after
// that instant. Prints how many were queued; a running dispatcher sends them.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { redeliver, RedeliverError } from '../src/db/webhook-deliveries.js';

const USAGE = 'usage: npm run webhooks:redeliver -- --seller CODE [--since ISO-8601] [--failed]';

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const argsSchema = z.object({
  seller: z.string().min(1, '--seller is required'),
  since: z.iso.datetime({ offset: true }).optional(),
  failed: z.boolean().default(false),
});

let raw: Record<string, unknown>;
try {
  raw = parseArgs({
    args: process.argv.slice(2).filter((a) => a !== '--'),
    options: { seller: { type: 'string' }, since: { type: 'string' }, failed: { type: 'boolean' } },
    strict: true,
  }).values;
} catch (err) {
  fail((err as Error).message);
}
const parsed = argsSchema.safeParse({ ...raw, seller: raw.seller ?? '' });
if (!parsed.success) fail(parsed.error.issues.map((i) => `${i.path.length ? `--${i.path.join('.')}: ` : ''}${i.message}`).join('\n'));
const args = parsed.data;

const env = loadEnv();
const pool = createPool(env.DATABASE_URL, 1);
try {
  const n = await redeliver(pool, { sellerCode: args.seller, since: args.since ? new Date(args.since) : undefined, failedOnly: args.failed });
  console.log(`${n} event${n === 1 ? '' : 's'} of seller '${args.seller}' queued for delivery${args.failed ? ' (failed only)' : ''}`);
} catch (err) {
  if (err instanceof RedeliverError) {
    console.error(err.message);
    process.exitCode = 1;
  } else throw err;
} finally {
  await pool.end();
}
