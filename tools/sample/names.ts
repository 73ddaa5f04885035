import { FAB_PARTS, LORCANA_PARTS, MAGIC_PARTS, POKEMON_PARTS, YUGIOH_PARTS } from './name-parts.js';
import { Rng } from './prng.js';
import { GAMES, type Game } from './vocab.js';

// The card names of the sample: one ranked list, most popular first, composed from word parts in
// each game's style. A sample of N listings uses the list's first cardNameCount(products) names,
// so a bigger sample holds every name a smaller one does. The list does not depend on the seed:
// every sample, bench and test sees the same names (the seed decides which products carry them).

export interface CardName {
  name: string;
  game: Game;
}

/** A real game's card pool tops out (15,000-30,000 names); the sample's five games stop here. */
export const MAX_CARD_NAMES = 40_000;

/**
 * Distinct card names in a sample of `products` products: about 1.1·products^0.8 (22,880 at
 * 250,000 products), so smaller samples hold fewer names but more names per product.
 */
export function cardNameCount(products: number): number {
  return Math.max(1, Math.min(MAX_CARD_NAMES, products, Math.round(1.1 * Math.pow(products, 0.8))));
}

/** Offset of the popularity curve: the top name carries about 0.5% of the drawn products. */
const POPULARITY_OFFSET = 30;

/**
 * The rank of a product's name for a uniform draw `u` in [0, 1): P(rank k) ∝ 1/(k + 30), a
 * Zipf-like curve (inverse of its continuous CDF), so a few names carry many products and the
 * long tail one or two each.
 */
export function popularRank(u: number, count: number): number {
  const k = POPULARITY_OFFSET;
  return Math.min(count - 1, Math.floor(k * Math.pow((count + k) / k, u) - k));
}

// ---- composing: each game's candidates, in a fixed shuffled order after its famous names ----

/** Fixed stream for the vocabulary: independent of any sample's seed. */
const VOCAB_STREAM = 0x766f6361;

const cross = <A, B>(as: readonly A[], bs: readonly B[], join: (a: A, b: B) => string): string[] => as.flatMap((a) => bs.map((b) => join(a, b)));

function shuffle<T>(items: T[], r: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** A name, or a group (a species with its printings, an attack in its pitches) kept together in rank order. */
type Unit = string | readonly string[];

/** A fixed stream per composed name: its forms do not depend on the lists' order. */
const streamOf = (kind: number, name: string) => {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h, 31) + name.charCodeAt(i);
  return Rng.for(VOCAB_STREAM, kind, h);
};

function magicUnits(): Unit[] {
  const p = MAGIC_PARTS;
  return [
    ...cross(p.adjectives, p.nouns, (a, n) => `${a} ${n}`),
    ...cross(p.nouns, p.places, (n, place) => `${n} of the ${place}`),
    ...cross(p.deeds, p.virtues, (d, v) => `${d} of ${v}`),
    ...cross(p.people, p.titles, (who, t) => `${who}, ${t}`),
    ...cross(p.people, p.possessions, (who, t) => `${who}'s ${t}`),
    ...cross(p.stems, p.suffixes, (s, x) => `${s}${x}`),
    ...cross(p.elements, p.spells, (e, s) => `${e} ${s}`),
  ];
}

/** Char + izard = Charizard; Abra + otto = Abratto, Char + rtle = Chartle (no doubled sound at the joint). */
function species(syllable: string, ending: string): string {
  const last = syllable.at(-1)!.toLowerCase();
  const vowels = /[aeiouy]$/.test(last) && /^[aeiou]/.test(ending);
  return vowels || ending.startsWith(last) ? syllable + ending.slice(1) : syllable + ending;
}

function pokemonUnits(): Unit[] {
  const p = POKEMON_PARTS;
  const units: Unit[] = cross(p.syllables, p.endings, species).map((s) => {
    const r = streamOf(2, s);
    return [
      s,
      ...p.suffixForms.filter(([, share]) => r.chance(share)).map(([form]) => `${s} ${form}`),
      ...p.prefixForms.filter(([, share]) => r.chance(share)).map(([form]) => `${form} ${s}`),
    ];
  });
  return [...units, ...cross(p.trainers, p.trainerThings, (who, t) => `${who}'s ${t}`), ...p.items];
}

function yugiohUnits(): Unit[] {
  const p = YUGIOH_PARTS;
  const r = Rng.for(VOCAB_STREAM, 3);
  return [
    ...cross(p.archetypes, p.nouns, (a, n) => `${a} ${n}`),
    // Blue-Eyes White Dragon: one in four such triples, or they would crowd out the rest.
    ...cross(p.archetypes, p.colours, (a, c) => `${a} ${c}`).flatMap((ac) => p.nouns.filter(() => r.chance(0.25)).map((n) => `${ac} ${n}`)),
    ...cross(p.vessels, p.virtues, (v, q) => `${v} of ${q}`),
    ...cross(p.trapWords, p.trapThings, (w, t) => `${w} ${t}`),
  ];
}

function lorcanaUnits(): Unit[] {
  return cross(LORCANA_PARTS.characters, LORCANA_PARTS.subtitles, (c, s) => `${c} - ${s}`);
}

function fabUnits(): Unit[] {
  const p = FAB_PARTS;
  const attacks = cross(p.adjectives, p.attacks, (a, x) => `${a} ${x}`).map((attack) => {
    const r = streamOf(5, attack);
    const pitches = r.chance(0.5) ? p.pitches : p.pitches.filter(() => r.chance(0.5));
    return (pitches.length > 0 ? pitches : [r.pick(p.pitches)]).map((pitch) => `${attack} ${pitch}`);
  });
  return [...attacks, ...cross(p.heroes, p.belongings, (h, b) => `${h}'s ${b}`)];
}

const COMPOSED: Readonly<Record<string, () => Unit[]>> = {
  'Magic: The Gathering': magicUnits,
  Pokémon: pokemonUnits,
  'Yu-Gi-Oh!': yugiohUnits,
  Lorcana: lorcanaUnits,
  'Flesh and Blood': fabUnits,
};

/** A game's names in rank order: its famous names as listed, then its composed names, shuffled once. */
function gameNames(game: Game, index: number): string[] {
  const units = shuffle(COMPOSED[game.category]?.() ?? [], Rng.for(VOCAB_STREAM, 1, index));
  return [...game.names, ...units.flat()];
}

let ranked: readonly CardName[] | undefined;

/**
 * Every game's names interleaved by the games' weights (smooth weighted round robin), each name
 * once, most popular first; MAX_CARD_NAMES of them. Built once per process (tens of milliseconds).
 */
export function rankedCardNames(): readonly CardName[] {
  if (ranked) return ranked;
  const lists = GAMES.map((g, i) => ({ game: g, names: gameNames(g, i), next: 0, credit: 0 }));
  const seen = new Set<string>();
  const out: CardName[] = [];
  while (out.length < MAX_CARD_NAMES) {
    let turn: (typeof lists)[number] | undefined;
    let total = 0;
    for (const l of lists) {
      if (l.next >= l.names.length) continue;
      l.credit += l.game.weight;
      total += l.game.weight;
      if (!turn || l.credit > turn.credit) turn = l;
    }
    if (!turn) break;
    turn.credit -= total;
    while (turn.next < turn.names.length) {
      const name = turn.names[turn.next++]!;
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ name, game: turn.game });
      break;
    }
  }
  ranked = out;
  return out;
}
