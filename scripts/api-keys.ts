// Seller API key operations (npm run keys -- <command>):
//   issue  --seller CODE [--label L]   prints a fresh key once; only its hash is stored
//   revoke --key KEY                   revokes one key
//   revoke --seller CODE --all         revokes every active key of the seller
//   list   --seller CODE               prefix, label, created, revoked (never the key)
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { issueApiKey, listApiKeys, revokeAllApiKeys, revokeApiKey, UnknownSellerError } from '../src/db/api-keys.js';
import { parseApiKey } from '../src/lib/api-key.js';

const USAGE = `usage:
  npm run keys -- issue --seller CODE [--label LABEL]
  npm run keys -- revoke --key KEY
  npm run keys -- revoke --seller CODE --all
  npm run keys -- list --seller CODE`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
let values: { seller?: string; label?: string; key?: string; all?: boolean };
try {
  ({ values } = parseArgs({
    args: rest,
    options: { seller: { type: 'string' }, label: { type: 'string' }, key: { type: 'string' }, all: { type: 'boolean' } },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}

const env = loadEnv();
const pool = createPool(env.DATABASE_URL, 1);
try {
  switch (command) {
    case 'issue': {
      if (!values.seller) fail('issue needs --seller');
      const { key, keyId } = await issueApiKey(pool, values.seller, values.label ?? null);
      console.error(`issued key ${keyId} for seller ${values.seller}; it is shown only now, store it safely:`);
      console.log(key);
      break;
    }
    case 'revoke': {
      if (values.key !== undefined) {
        if (values.seller !== undefined || values.all) fail('revoke takes either --key or --seller with --all');
        if (!parseApiKey(values.key)) fail('--key is not a well-formed API key');
        const done = await revokeApiKey(pool, values.key);
        console.log(done ? 'revoked 1 key' : 'no active key matches; nothing revoked');
        if (!done) process.exitCode = 1;
      } else if (values.seller !== undefined && values.all) {
        const n = await revokeAllApiKeys(pool, values.seller);
        console.log(`revoked ${n} key(s) of seller ${values.seller}`);
      } else {
        fail('revoke needs --key KEY, or --seller CODE --all');
      }
      break;
    }
    case 'list': {
      if (!values.seller) fail('list needs --seller');
      const keys = await listApiKeys(pool, values.seller);
      if (keys.length === 0) console.log(`seller ${values.seller} has no keys`);
      for (const k of keys) {
        console.log(
          [k.prefix + '…', k.label ?? '-', `created ${k.createdAt.toISOString()}`, k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'].join(
            '\t',
          ),
        );
      }
      break;
    }
    default:
      fail(command ? `unknown command: ${command}` : 'missing command');
  }
} catch (err) {
  if (err instanceof UnknownSellerError) {
    console.error(err.message);
    process.exitCode = 1;
  } else {
    throw err;
  }
} finally {
  await pool.end();
}
