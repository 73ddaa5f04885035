import { loadEnv } from '../src/config/env.js';
import { migrateUp } from '../src/db/migrate.js';

const env = loadEnv();
await migrateUp(env.DATABASE_URL, (m) => console.log(m));
console.log('migrations up to date');
