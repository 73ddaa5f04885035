// What a card indexes for suggestions besides its name terms (docs/search-design.md,
// "Suggestions"): every prefix of each name term from MIN_GRAM code points up to the whole term,
// so a fuzzy query on them finds a term within a few typos of the start of a name term. Shorter
// prefixes need no grams: a last query term of MIN_GRAM characters or fewer has no typo budget and
// is a prefix query on the name terms. Longer prefixes than MAX_GRAM are not kept: a suggestion's
// query is at most 100 characters and a fuzzy query reaches 2 edits further, so they could never
// match, and a name of one 40,000-character term would otherwise make a card of 800 million.

export const MIN_GRAM = 4;
export const MAX_GRAM = 102;

/** The distinct prefixes of the folded terms (space-separated `nameTerms`) of MIN_GRAM to MAX_GRAM code points, in term order. */
export function nameGrams(nameTerms: string): string[] {
  const out = new Set<string>();
  for (const term of nameTerms.split(' ')) {
    const cps = Array.from(term);
    for (let n = MIN_GRAM; n <= Math.min(cps.length, MAX_GRAM); n++) out.add(cps.slice(0, n).join(''));
  }
  return [...out];
}
