// What a card indexes for suggestions besides its name terms (docs/search-design.md,
// "Suggestions"): every prefix of each name term from MIN_GRAM code points up to the whole term,
// so a fuzzy query on them finds a term within a few typos of the start of a name term. Shorter
// prefixes need no grams: a last query term of MIN_GRAM characters or fewer has no typo budget and
// is a prefix query on the name terms.

export const MIN_GRAM = 4;

/** The distinct prefixes of the folded terms (space-separated `nameTerms`) of MIN_GRAM or more code points, in term order. */
export function nameGrams(nameTerms: string): string[] {
  const out = new Set<string>();
  for (const term of nameTerms.split(' ')) {
    const cps = Array.from(term);
    for (let n = MIN_GRAM; n <= cps.length; n++) out.add(cps.slice(0, n).join(''));
  }
  return [...out];
}
