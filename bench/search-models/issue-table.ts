// The issue 14 table: Elasticsearch `took` of its searches on the current path (offers + composite, or
// cards), request cache off. `. .stack/env && nice -n 19 npx tsx bench/search-models/issue-table.ts [reps]`
import { loadEnv } from '../../src/config/env.js';
import { createEsClient } from '../../src/es/client.js';
import { searchQuerySchema } from '../../src/contract/buyer.js';
import { searchBody } from './offer-path.js';
import { cardSearchBody, usesCards } from '../../src/search/queries/card-search.js';
import { load } from '../world.js';
const es = createEsClient(loadEnv().ELASTICSEARCH_URL, 120_000);
const reps = Number(process.argv[2] ?? 3);
const cases = [
  { condition: 'Near Mint' },
  { checkoutMode: 'express' },
  { condition: 'Near Mint', language: 'English' },
  { language: 'Japanese' },
  { sellerCode: 'resund-games-1' },
  { category: 'Pokémon', finish: 'Holofoil' },
  {},
  { sort: 'name_desc' },
];
for (const raw of cases) {
  const q = searchQuerySchema.parse(raw);
  const body = usesCards(q) ? cardSearchBody(q, null) : searchBody(q, null);
  const t: number[] = [];
  for (let i = 0; i < reps; i++) t.push(((await es.search({ index: 'mp-market', request_cache: false, ...body } as never)) as { took: number }).took);
  console.log(`| \`${JSON.stringify(raw)}\` | ${t.join(' ')} | ${load()} |`);
}
await es.close();
