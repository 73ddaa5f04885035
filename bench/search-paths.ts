// Elasticsearch `took` of the same searches over offer documents and over product cards
// (npm run bench:search-paths -- --prefix P [--repeats 6]), the request cache off: what the card
// path saves per query, independent of the API. Needs an alias indexed by this code (cards).
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { searchQuerySchema } from '../src/contract/buyer.js';
import { searchBody } from './search-models/offer-path.js';
import { cardSearchBody } from '../src/search/queries/card-search.js';
import { load } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { prefix: { type: 'string' }, repeats: { type: 'string', default: '6' } },
});
if (!values.prefix) throw new Error('--prefix P: the INDEX_PREFIX of an indexed alias');
const es = createEsClient(loadEnv().ELASTICSEARCH_URL, 60_000);
const index = indexNames(values.prefix).alias;
const cases: Record<string, string>[] = [{}, { sort: 'name_desc' }, { category: 'Magic: The Gathering' }, { keyword: 'dragon' }];
console.log(`| query | offers took ms | cards took ms |  (${index}, ${values.repeats} repeats, request cache off; ${load()})`);
console.log('|---|---|---|');
for (const raw of cases) {
  const q = searchQuerySchema.parse(raw);
  const took: Record<'offers' | 'cards', number[]> = { offers: [], cards: [] };
  for (let i = 0; i < Number(values.repeats); i++) {
    for (const [name, body] of [
      ['offers', searchBody(q, null)],
      ['cards', cardSearchBody(q, null)],
    ] as const) {
      const r = await es.search({ index, request_cache: false, ...body } as never);
      took[name].push(r.took);
    }
  }
  console.log(`| ${JSON.stringify(raw)} | ${took.offers.join(' ')} | ${took.cards.join(' ')} |`);
}
await es.close();
