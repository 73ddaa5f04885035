// Vocabulary of the sample marketplace: games, sets, card names (with accents and punctuation on
// purpose: search folding must cope), rarities, printings. Plain data, no logic.

export interface Game {
  category: string;
  weight: number;
  sets: ReadonlyArray<{ name: string; code: string; size: number }>;
  rarities: ReadonlyArray<readonly [string, number]>;
  finishes: ReadonlyArray<readonly [string, number]>;
  languages: ReadonlyArray<readonly [string, number]>;
  /** The game's famous card names, most popular first; tools/sample/names.ts composes the rest. */
  names: readonly string[];
  sealed: readonly string[];
  collectorNumber: (setCode: string, setSize: number, n: number) => string;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

export const GAMES: readonly Game[] = [
  {
    category: 'Magic: The Gathering',
    weight: 45,
    sets: [
      { name: 'Alpha', code: 'LEA', size: 295 },
      { name: 'Ice Age', code: 'ICE', size: 383 },
      { name: 'Coldsnap', code: 'CSP', size: 155 },
      { name: 'Time Spiral', code: 'TSP', size: 301 },
      { name: 'Innistrad', code: 'ISD', size: 264 },
      { name: 'Kaladesh', code: 'KLD', size: 264 },
      { name: 'Dominaria United', code: 'DMU', size: 281 },
      { name: 'The Lord of the Rings: Tales of Middle-earth', code: 'LTR', size: 281 },
      { name: 'Modern Horizons 3', code: 'MH3', size: 303 },
      { name: 'Duskmourn: House of Horror', code: 'DSK', size: 286 },
      { name: 'Foundations', code: 'FDN', size: 291 },
      { name: 'Aetherdrift', code: 'DFT', size: 291 },
    ],
    rarities: [
      ['Common', 50],
      ['Uncommon', 30],
      ['Rare', 15],
      ['Mythic Rare', 5],
    ],
    finishes: [
      ['Non-Foil', 70],
      ['Foil', 25],
      ['Etched Foil', 5],
    ],
    languages: [
      ['English', 75],
      ['Japanese', 8],
      ['German', 4],
      ['French', 4],
      ['Italian', 2],
      ['Spanish', 3],
      ['Portuguese', 1],
      ['Russian', 1],
      ['Korean', 1],
      ['Chinese Simplified', 1],
    ],
    names: [
      'Lightning Bolt',
      'Lightning Helix',
      'Counterspell',
      'Thoughtseize',
      'Æther Vial',
      "Lim-Dûl's Vault",
      'Jötun Grunt',
      'Dark Ritual',
      'Llanowar Elves',
      'Sol Ring',
      'Swords to Plowshares',
      'Brainstorm',
      'Tarmogoyf',
      'Snapcaster Mage',
      'Dandân',
      'Ghazbán Ogre',
      'Junún Efreet',
      'Marton Stromgald',
      'Ifh-Bíff Efreet',
      'Séance',
      'Lórien Revealed',
      'Éomer of the Riddermark',
      'Gríma Wormtongue',
      'Déjà Vu',
      'Wrath of God',
      'Birds of Paradise',
      'Force of Will',
      'Ragavan, Nimble Pilferer',
      'The One Ring',
      'Urza, Lord High Artificer',
      'Jace, the Mind Sculptor',
      'Æthersnipe',
      'Ætherize',
      "Kaya's Guile",
      'Path to Exile',
      'Fatal Push',
      'Cryptic Command',
      'Mox Opal',
      'Nykthos, Shrine to Nyx',
      'Karn Liberated',
      'Emrakul, the Aeons Torn',
    ],
    sealed: ['Play Booster Box', 'Collector Booster Box', 'Bundle', 'Commander Deck', 'Draft Booster Box'],
    collectorNumber: (_c, _s, n) => String(n),
  },
  {
    category: 'Pokémon',
    weight: 25,
    sets: [
      { name: 'Base Set', code: 'BS', size: 102 },
      { name: 'Jungle', code: 'JU', size: 64 },
      { name: 'Evolving Skies', code: 'EVS', size: 203 },
      { name: 'Crown Zenith', code: 'CRZ', size: 159 },
      { name: 'Scarlet & Violet—151', code: 'MEW', size: 165 },
      { name: 'Paldea Evolved', code: 'PAL', size: 193 },
      { name: 'Surging Sparks', code: 'SSP', size: 191 },
      { name: 'Prismatic Evolutions', code: 'PRE', size: 131 },
    ],
    rarities: [
      ['Common', 45],
      ['Uncommon', 28],
      ['Rare', 14],
      ['Double Rare', 6],
      ['Illustration Rare', 5],
      ['Special Illustration Rare', 2],
    ],
    finishes: [
      ['Non-Foil', 60],
      ['Holofoil', 20],
      ['Reverse Holofoil', 20],
    ],
    languages: [
      ['English', 70],
      ['Japanese', 20],
      ['French', 4],
      ['German', 3],
      ['Korean', 3],
    ],
    names: [
      'Charizard',
      'Pikachu',
      'Charmander',
      'Charmeleon',
      'Charizard ex',
      'Flabébé',
      'Floette',
      'Florges',
      'Eevee',
      'Mr. Mime',
      "Farfetch'd",
      'Nidoran♀',
      'Nidoran♂',
      'Porygon-Z',
      'Type: Null',
      'Mime Jr.',
      'Umbreon VMAX',
      'Gardevoir ex',
      'Sylveon',
      'Mewtwo',
      'Flabébé (Blue Flower)',
      'Hisuian Zoroark VSTAR',
      'Iron Valiant ex',
      "Professor's Research",
      "Boss's Orders",
    ],
    sealed: ['Booster Box', 'Elite Trainer Box', 'Booster Bundle', 'Premium Collection'],
    collectorNumber: (_c, size, n) => `${pad(n, 3)}/${size}`,
  },
  {
    category: 'Yu-Gi-Oh!',
    weight: 15,
    sets: [
      { name: 'Legend of Blue Eyes White Dragon', code: 'LOB', size: 126 },
      { name: 'Metal Raiders', code: 'MRD', size: 144 },
      { name: 'Phantom Nightmare', code: 'PHNI', size: 100 },
      { name: 'Rage of the Abyss', code: 'ROTA', size: 100 },
      { name: 'Quarter Century Bonanza', code: 'RA03', size: 108 },
    ],
    rarities: [
      ['Common', 45],
      ['Rare', 20],
      ['Super Rare', 15],
      ['Ultra Rare', 12],
      ['Secret Rare', 6],
      ['Starlight Rare', 2],
    ],
    finishes: [
      ['Unlimited', 70],
      ['1st Edition', 30],
    ],
    languages: [
      ['English', 80],
      ['Japanese', 10],
      ['German', 4],
      ['French', 3],
      ['Italian', 3],
    ],
    names: [
      'Blue-Eyes White Dragon',
      'Dark Magician',
      'Ash Blossom & Joyous Spring',
      'Pot of Greed',
      'Mirror Force',
      'Effect Veiler',
      'Called by the Grave',
      'Nibiru, the Primal Being',
      'Maxx "C"',
      'Elemental HERO Neos',
      'Red-Eyes B. Dragon',
      'Infinite Impermanence',
    ],
    sealed: ['Booster Box', 'Structure Deck', 'Tin'],
    collectorNumber: (code, _s, n) => `${code}-EN${pad(n, 3)}`,
  },
  {
    category: 'Lorcana',
    weight: 8,
    sets: [
      { name: 'The First Chapter', code: '1', size: 204 },
      { name: 'Rise of the Floodborn', code: '2', size: 204 },
      { name: 'Into the Inklands', code: '3', size: 204 },
      { name: "Ursula's Return", code: '4', size: 204 },
    ],
    rarities: [
      ['Common', 45],
      ['Uncommon', 28],
      ['Rare', 14],
      ['Super Rare', 8],
      ['Legendary', 4],
      ['Enchanted', 1],
    ],
    finishes: [
      ['Non-Foil', 75],
      ['Cold Foil', 25],
    ],
    languages: [
      ['English', 80],
      ['French', 8],
      ['German', 7],
      ['Italian', 5],
    ],
    names: [
      'Elsa - Spirit of Winter',
      'Mickey Mouse - Brave Little Tailor',
      'Stitch - Rock Star',
      'Maui - Hero to All',
      'Belle - Strange but Special',
      'Be Prepared',
      "Ursula's Cauldron",
      'Tinker Bell - Giant Fairy',
    ],
    sealed: ['Booster Box', "Illumineer's Trove", 'Starter Deck'],
    collectorNumber: (_c, size, n) => `${n}/${size}`,
  },
  {
    category: 'Flesh and Blood',
    weight: 7,
    sets: [
      { name: 'Welcome to Rathe', code: 'WTR', size: 225 },
      { name: 'Arcane Rising', code: 'ARC', size: 218 },
      { name: 'Monarch', code: 'MON', size: 306 },
      { name: 'Heavy Hitters', code: 'HVY', size: 253 },
    ],
    rarities: [
      ['Common', 50],
      ['Rare', 25],
      ['Super Rare', 12],
      ['Majestic', 8],
      ['Legendary', 4],
      ['Fabled', 1],
    ],
    finishes: [
      ['Non-Foil', 70],
      ['Rainbow Foil', 22],
      ['Cold Foil', 8],
    ],
    languages: [
      ['English', 85],
      ['Japanese', 5],
      ['German', 4],
      ['French', 3],
      ['Spanish', 3],
    ],
    names: [
      'Snatch',
      'Command and Conquer',
      'Enlightened Strike',
      'Art of War',
      "Fyendal's Spring Tunic",
      'Eye of Ophidia',
      'Heart of Fyendal',
      'Crown of Seeds',
    ],
    sealed: ['Booster Box', 'Blitz Deck', 'Armory Deck'],
    collectorNumber: (code, _s, n) => `${code}${pad(n, 3)}`,
  },
];

export const SEALED_CONDITION = 'Unopened';

export const CONDITIONS: ReadonlyArray<readonly [string, number]> = [
  ['Near Mint', 55],
  ['Lightly Played', 22],
  ['Moderately Played', 12],
  ['Heavily Played', 7],
  ['Damaged', 4],
];

/** Price factor of a card's condition relative to Near Mint. */
export const CONDITION_FACTOR: Readonly<Record<string, number>> = {
  'Near Mint': 1,
  'Lightly Played': 0.85,
  'Moderately Played': 0.7,
  'Heavily Played': 0.5,
  Damaged: 0.3,
  Unopened: 1,
};

export const ARTISTS = [
  'Christopher Rush',
  'Zoë Ågren',
  'José Müller',
  'Mitsuhiro Arita',
  'Anaïs Lefèvre',
  'Sigrún Hallsdóttir',
  'Kōji Tanaka',
  'Rébecca Dubé',
];

export const STORE_FIRSTS = [
  'Maple',
  'Northern',
  'Château',
  'Québec',
  'Prairie',
  'Coastal',
  'Øresund',
  'Timberline',
  'Aurora',
  'Frontenac',
  'Île',
  'Muskoka',
  'Cariboo',
  'Rideau',
  'Fundy',
];
export const STORE_SECONDS = ['Cards', 'Games', 'Collectibles', 'Card Vault', 'Hobbies', 'TCG', 'Cartes', 'Singles', 'Comics & Cards', 'Gaming Den'];

/** [province, weight] for Canadian sellers. */
export const PROVINCES: ReadonlyArray<readonly [string, number]> = [
  ['ON', 38],
  ['QC', 22],
  ['BC', 14],
  ['AB', 12],
  ['MB', 4],
  ['SK', 3],
  ['NS', 3],
  ['NB', 2],
  ['NL', 1],
  ['PE', 1],
];

export const SHIPPING_OPTIONS = [
  { method: 'Lettermail', cost: 199, tracked: false },
  { method: 'Tracked Packet', cost: 899, tracked: true },
  { method: 'Tracked Expedited', cost: 1299, tracked: true },
  { method: 'Xpresspost', cost: 1899, tracked: true },
] as const;

export const HANDOFF_STORES = [
  { storeSlug: 'north-shop', storeName: 'North Shop', sellerCode: 'north', active: true },
  { storeSlug: 'prairie-games', storeName: 'Prairie Games', sellerCode: 'prairie', active: true },
  { storeSlug: 'coastal-collectibles', storeName: 'Coastal Collectibles', sellerCode: null, active: true },
  { storeSlug: 'montreal-cartes', storeName: 'Montréal Cartes', sellerCode: 'mtl-cartes', active: true },
  { storeSlug: 'yukon-vault', storeName: 'Yukon Vault', sellerCode: 'yukon', active: false },
] as const;
