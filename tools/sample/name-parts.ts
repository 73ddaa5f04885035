// Word parts the sample composes card names from (tools/sample/names.ts), per game, in each
// game's own naming style. Lists hold near pairs on purpose (Blade/Blaze, Wurm/Wyrm, -rina/-rino):
// real card pools are full of names one or two edits apart, and search help has to tell them apart.

/** A comma-separated list of parts (kept on a few lines rather than one part a line). */
const parts = (s: string): readonly string[] => s.split(',').map((p) => p.trim());

export const FAB_PARTS = {
  heroes: parts(`
      Rhinar, Dorinthea, Katsu, Bravo, Prism, Chane, Kano, Viserai, Azalea, Boltyn, Levia, Briar, Oldhim, Lexi, Dash, Ira,
      Arakni, Uzuri, Riptide, Fai, Dromai, Iyslander, Kayo, Victor, Betsy, Florian`),
  belongings: parts(`
      Spring Tunic, Helm, Gauntlets, Greaves, Blade, Bow, Staff, Hammer, Tome, Grimoire, Legacy, Resolve, Fury, Wrath, Oath,
      Pride, Reckoning, Vigil, Edge, Mark, Charm, Shroud, Mantle, Crown, Ward, Cloak, Boots, Bracers, Quiver, Sigil, Pendant,
      Talisman, Shackles, Ember, Gambit, Lament, Bargain, Chorus, Harvest, Calling`),
  adjectives: parts(`
      Reckless, Steelblade, Whelming, Crippling, Enlightened, Savage, Barraging, Spinal, Rising, Flying, Lunging, Whirling,
      Driving, Pounding, Raging, Thundering, Scar, Sigil, Blessing, Feral, Bloodied, Snapping, Sharpened, Salvaged, Forged,
      Aether, Arcane, Lightning, Frost, Ember, Runic, Shadow, Soul, Blood, Stone, Iron, Glint, Ghostly, Rapid, Relentless,
      Tenacious, Dazzling, Brutal, Cunning, Surging, Swift, Toppling, Overpowering, Searing, Spectral`),
  attacks: parts(`
      Swing, Shunt, Gustwave, Crush, Strike, Harvest, Debt, Blow, Slash, Thrust, Lunge, Jab, Kick, Smash, Onslaught, Assault,
      Charge, Rampage, Flurry, Barrage, Cleave, Bash, Pummel, Flick, Spark, Bolt, Snap, Surge, Blast, Wave, Sweep, Edge, Reach,
      Rush, Roar, Howl, Fang, Claw, Bite, Tide, Volley, Pierce, Twist, Spin, Breaker, Shatter, Splinter, Shred, Rend, Ravage`),
  /** A Flesh and Blood attack is printed in up to three pitches: Snatch (Red), Snatch (Blue). */
  pitches: parts(`(Red), (Yellow), (Blue)`),
};

export const LORCANA_PARTS = {
  characters: parts(`
      Elsa, Anna, Mickey Mouse, Minnie Mouse, Donald Duck, Daisy Duck, Goofy, Pluto, Stitch, Lilo, Maui, Moana, Belle, Beast,
      Gaston, Ariel, Ursula, Triton, Sebastian, Flounder, Hades, Hercules, Megara, Rapunzel, Flynn Rider, Mother Gothel, Scar,
      Simba, Mufasa, Nala, Timon, Pumbaa, Rafiki, Genie, Aladdin, Jasmine, Jafar, Iago, Cruella De Vil, Pua, Tinker Bell,
      Peter Pan, Captain Hook, Wendy Darling, Mulan, Mushu, Pocahontas, Merlin, Madam Mim, Maleficent, Aurora, Cinderella,
      Lady Tremaine, Robin Hood, Prince John, Sisu, Raya, Mirabel Madrigal, Te Kā, Kristoff`),
  subtitles: parts(`
      Spirit of Winter, Brave Little Tailor, Rock Star, Hero to All, Strange but Special, Giant Fairy, Of Motunui,
      King of Olympus, Gifted with Healing, Fiery Usurper, On the Job, Miserable as Usual, Potbellied Buddy, Snow Queen,
      Ice Maker, Heir of Arendelle, Wayward Sorcerer, Steamboat Pilot, True Friend, Musketeer, Daredevil, Lost Prince,
      Bold Adventurer, Royal Guard, Sea Witch, Deceiver, Ruler of the Seas, Crab Maestro, Whoseit Collector,
      Lord of the Underworld, Hotheaded Ruler, Gifted Artist, Vengeful Sorcerer, Treasure Keeper, Caring Sister,
      Fearless Leader, Voice of the Ocean, Wise Old Owl, Captain of the Guard, Night Watch, Storyborn Hero, Dreamborn Wanderer,
      Floodborn Schemer, Inkcaster, Sleepy Sidekick, Rightful Heir, Junior Detective, Snow Prince, Gentle Giant, Rising Star,
      Queen of Hearts, Dragon Slayer, Pirate Captain, Spectral Seer, Sugar Rush, Forest Guardian, Village Hero,
      Cunning Trickster, Wild Card, Lucky Dime, Chosen One, Fierce Protector, Perfect Gentleman, Tenacious Tinkerer,
      Mystical Rose, Silver Tongue, Mistress of All Evil, Golden Heart, Thunder Rider, Midnight Stroller, Glass Slipper,
      Reluctant Hero, Whispering Wind, Ocean Explorer, Sky Pirate, Quick Study, Stalwart Friend, Moonlit Dancer, Jungle King,
      Kind Stranger`),
};

export const MAGIC_PARTS = {
  adjectives: parts(`
      Ancient, Ashen, Arcane, Blazing, Bloodthirsty, Bog, Bone, Brazen, Briar, Cinder, Cloud, Crimson, Crypt, Cursed, Dawn,
      Dark, Dread, Dusk, Dûnwood, Ember, Emerald, Eternal, Feral, Fiery, Frost, Gilded, Glacial, Gloom, Golden, Grave, Grim,
      Hallowed, Hollow, Iron, Ivory, Jade, Kjeldoran, Lava, Lone, Lunar, Marsh, Mirran, Mist, Moon, Night, Noble, Oath,
      Obsidian, Pale, Primal, Raging, Restless, Rune, Sacred, Savage, Scaled, Shadow, Shattered, Silent, Silver, Skyward, Soul,
      Spectral, Stone, Storm, Sun, Sunforged, Swift, Thran, Thorn, Tidal, Twilight, Umbral, Vault-Born, Veiled, Venom, Vile,
      Wild, Wind, Withered, Ætherflame, Çirith, Blighted, Bright, Copper, Coral, Deathless, Elder, Fleet, Gnarled, Hidden,
      Howling, Keen, Molten, Oblivion, Runed, Searing, Sunlit, Vengeful, Wandering`),
  nouns: parts(`
      Sentinel, Ranger, Drake, Revenant, Alchemist, Behemoth, Oracle, Marauder, Familiar, Colossus, Hierophant, Wurm, Wyrm,
      Angel, Archer, Assassin, Avenger, Bear, Berserker, Blade, Blaze, Bloodletter, Brute, Captain, Champion, Chimera, Cleric,
      Crow, Crown, Cultist, Dragon, Druid, Duelist, Elemental, Elf, Enchantress, Exarch, Falcon, Flame, Flare, Gargoyle, Ghoul,
      Giant, Golem, Griffin, Grove, Grave, Guardian, Harbinger, Hellion, Herald, Hound, Hydra, Imp, Inquisitor, Juggernaut,
      Knight, Kraken, Leviathan, Lich, Mage, Magus, Mystic, Nomad, Ogre, Paladin, Phoenix, Pilgrim, Prophet, Raider, Reaper,
      Rogue, Sage, Scout, Seer, Serpent, Shaman, Shade, Skirmisher, Spire, Spore, Sphinx, Spirit, Squire, Stalker, Tactician,
      Templar, Thopter, Titan, Troll, Vampire, Vanguard, Warden, Warlord, Wraith, Wolf, Zealot, Zombie, Witch, Shepherd,
      Acolyte, Apostle, Basilisk, Centaur, Construct, Djinn, Efreet, Gorgon, Horror, Lancer, Minotaur, Myr, Nephilim, Prowler,
      Sliver, Specter, Treefolk, Wanderer, Weaver, Wyvern`),
  places: parts(`
      Dûnwood, Abyss, Ancients, Coven, Deep, Dunes, Forge, Glade, Hollow, Horde, Mire, Monastery, Multiverse, Nest, Pit, Ruins,
      Spires, Tides, Tundra, Underdark, Vault, Veil, Wastes, Wilds, Maelstrom, Sunken City, Riddermark, Shire, Meadows,
      Lost Vale`),
  deeds: parts(`
      Wrath, Force, Path, Oath, Sign, Song, Echo, Word, Hymn, Rite, Gift, Call, Blessing, Curse, Vow, Pact, Seal, Sword, Edict,
      Hand, Eye, Heart, Tome, Mask, Font`),
  virtues: parts(`
      God, Will, Negation, Despair, Denial, Fury, Grace, Ruin, Vengeance, Valor, Suffering, Doom, Ages, Eons, Insight, Memory,
      Silence, Thorns, Kings, Dreams, Chaos, Light, Night, Ash, Renewal, Glory, the Ancients, the Void, Mending, Plenty`),
  people: parts(`
      Urza, Jace, Kaya, Karn, Teferi, Gideon, Liliana, Chandra, Nissa, Sorin, Ajani, Elspeth, Ugin, Lim-Dûl, Éomer, Gríma,
      Marton, Øyvind, Ulamog, Kozilek, Yawgmoth, Mishra, Feldon, Jodah, Ertai, Gerrard, Volrath, Squee, Sheoldred, Atraxa,
      Kroxa, Thalia, Sigarda, Avacyn, Tibalt, Oona, Dakkon, Gisa, Geralf, Ashiok, Vraska, Niv-Mizzet, Zégana, Séverine,
      Ravnica`),
  titles: parts(`
      Lord High Artificer, the Mind Sculptor, Nimble Pilferer, the Aeons Torn, the Unbroken, the Eternal, Voice of Ages,
      Master of Waves, Hero of Dominaria, Ancient Guardian, Dread Sovereign, the Realm-Cleaver, Heir of Falkenrath,
      Storm's Fury, Keeper of Secrets, Tyrant of the Deep, the Defiler, Bane of Progress, Spark Wielder, Archmage Ascendant,
      Grim Harvester, Mother of Runes, the Betrayer, Dawn of Hope, Guildmaster, Reckless Wanderer, Ghostly Sage,
      Steward of Ages, the Unraveler, Lost Pilgrim, Fortune Thief, the Whisperer, Hope Incarnate, Relentless Marauder,
      Hand of Death, Blade of the Ages, Queen of Thorns, the Last Hope, Primeval Titan, Ancient Dreamer`),
  possessions: parts(`
      Guile, Vault, Cauldron, Gambit, Ingenuity, Legacy, Wrath, Command, Betrayal, Insight, Triumph, Defiance, Bauble, Lantern,
      Staff, Spellbook, Crypt, Workshop, Mine, Tower, Engine, Ultimatum, Resolve, Rebuke, Scorn, Vengeance, Edict, Bargain,
      Decree, Oath, Gauntlet, Ward, Sigil, Chosen, Regalia, Charm, Reckoning, Contempt, Epiphany, Armory`),
  stems: parts(`
      Thought, Counter, Brain, Mind, Soul, Spell, Storm, Blood, Bone, Fire, Frost, Grave, Life, Light, Moon, Night, Shadow,
      Sky, Star, Sun, Thunder, Tide, Void, War, Wind, Æther, Flame, Dream, Heart, Doom, Glimmer, Hex, Rune, Scale, Thorn,
      Shard, Stone, Mire, Ash, Cinder`),
  suffixes: parts(`
      seize, spell, storm, snipe, weaver, caller, binder, breaker, shaper, walker, stalker, sworn, forge, ward, bane, born,
      cleaver, hunter, reaver, render, singer, smith, speaker, strider, mancer, ripper, scourge, splitter, sight, lash, fall,
      bloom, sear, wake, drinker`),
  elements: parts(`
      Lightning, Fire, Frost, Flame, Shadow, Storm, Thunder, Mind, Soul, Blood, Ice, Stone, Wind, Sun, Moon, Void, Chaos, Arc,
      Æther, Acid, Venom, Spirit, Holy, Death, Life`),
  spells: parts(`
      Bolt, Helix, Strike, Blast, Surge, Spike, Storm, Lash, Lance, Snap, Rift, Ward, Burst, Wave, Javelin, Shock, Axe, Crash,
      Cage, Breath, Sear, Spear, Bind, Twist, Shift, Grasp, Shroud, Barrage, Volley, Greaves, Rune, Chain, Rupture, Torrent,
      Bloom`),
};

export const POKEMON_PARTS = {
  /** Species are a first syllable and an ending: Char + izard, Char + mander, Char + meleon. */
  syllables: parts(`
      Char, Squir, Bulba, Pidg, Rat, Spear, Ekan, Sand, Nido, Vul, Jiggly, Zub, Oddi, Para, Veno, Dig, Meo, Psy, Gol, Mank,
      Grow, Poli, Abra, Mach, Bell, Tenta, Geo, Pony, Slow, Magne, Dod, Shell, Gast, Ony, Drow, Krab, Volt, Exeg, Cubo, Lick,
      Koff, Rhy, Tang, Kanga, Hors, Gold, Star, Scy, Elec, Mag, Gyara, Lap, Vapor, Jolt, Flar, Oma, Kabu, Aero, Snor, Drati,
      Chiko, Cynda, Toto, Hoot, Ledy, Spin, Togi, Mar, Sudo, Hoppi, Umbr, Mur, Gira, Pine, Dun, Snub, Teddi, Swin, Remo, Houn`),
  endings: parts(`
      izard, mander, meleon, tle, rtle, saur, otto, ata, ate, row, shrew, ran, rina, rino, pix, tales, puff, buff, bat, sect,
      nat, lett, duck, key, lithe, wag, chop, sprout, cool, cruel, dude, bro, mite, ton, don, rio, eel, ster, ter, gar, zee,
      ler, trode, cute, wak, lee, tung, fing, horn, sey, gela, ros, chu, vee, eon, gon, nyte, tops, los, cuno, dos, nite, dra,
      rite, lax, pod, kit, ling, quil, flare`),
  /** Printed after the species (Charizard ex, Charizard VMAX): [form, share of species printed with it]. */
  suffixForms: [
    ['ex', 0.4],
    ['V', 0.25],
    ['GX', 0.15],
    ['VMAX', 0.12],
    ['VSTAR', 0.1],
    ['BREAK', 0.04],
  ] as ReadonlyArray<readonly [string, number]>,
  /** Printed before the species (Radiant Charizard, Team Rocket's Mewtwo): [form, share]. */
  prefixForms: [
    ['Alolan', 0.04],
    ['Galarian', 0.04],
    ['Hisuian', 0.03],
    ['Paldean', 0.03],
    ['Radiant', 0.05],
    ['Dark', 0.05],
    ['Shining', 0.03],
    ["Team Rocket's", 0.04],
    ["Misty's", 0.02],
    ["Brock's", 0.02],
    ["Erika's", 0.02],
    ["Lt. Surge's", 0.02],
    ["Sabrina's", 0.02],
    ["Giovanni's", 0.02],
    ["Marnie's", 0.02],
    ["Lillie's", 0.02],
    ["Cynthia's", 0.02],
    ["N's", 0.02],
  ] as ReadonlyArray<readonly [string, number]>,
  trainers: parts(`
      Professor, Boss, Team Yell, Judge, Marnie, Cynthia, Iono, Arven, Penny, Nemona, Lillie, Hop, Sonia, Bede, Raihan, Klara,
      Peonia, Melony, Irida, Cyllene`),
  trainerThings: parts(`
      Research, Orders, Grunt, Determination, Resolve, Vitality, Sandwich, Backpack, Plan, Order, Scheme, Assistance,
      Encouragement, Conviction, Rally, Hospitality, Expertise, Strategy, Secret, Tactics, Gift, Challenge, Leadership,
      Pep Talk, Rescue`),
  items: parts(`
      Poké Ball, Great Ball, Ultra Ball, Nest Ball, Level Ball, Quick Ball, Rare Candy, Switch, Energy Retrieval, Super Rod,
      Pokégear 3.0, Pokémon Catcher, Lost Vacuum, Choice Belt, Rescue Stretcher, Night Stretcher, Counter Catcher, Escape Rope,
      Super Potion, Max Potion`),
};

export const YUGIOH_PARTS = {
  archetypes: parts(`
      Blue-Eyes, Red-Eyes, Dark, Cyber, Elemental HERO, Destiny HERO, Lightsworn, Fire King, Kashtira, Snake-Eye, Gem-Knight,
      Crystal Beast, Sky Striker, Blackwing, Dragunity, Galaxy-Eyes, Odd-Eyes, Shiranui, Tearlament, Branded, Spright,
      Swordsoul, Salamangreat, Sylvan, Madolche, Ancient Gear, Chaos, Darklord, Gladiator Beast, Evil Eye, Infernoid, Mermail,
      Shaddoll, Zoodiac, Dinomist, Performapal, Lunalight, Shadow, Toon, Harpie`),
  colours: parts(`White, Black, Chaos, Ultimate, Twin-Headed, Silver, Crimson, Azure, Shining, Ancient, Rainbow, Obsidian`),
  nouns: parts(`
      Dragon, Magician, Knight, Sorceress, Golem, Phoenix, Fenrir, Warrior, Paladin, Beast, Angel, Fiend, Wyvern, Serpent,
      Titan, Soldier, Maiden, Wizard, Swordsman, Samurai, Ninja, Avatar, Lancer, Archfiend, Sentinel, Guardian, Dragoon,
      Emperor, Queen, King, Priestess, Unicorn, Kirin, Hydra, Wolf, Tiger, Falcon, Griffin, Chimera, Gorgon, Mermaid, Cannon,
      Reactor, Sphinx, Valkyrie`),
  vessels: parts(`
      Pot, Book, Call, Seal, Scroll, Sword, Shield, Gate, Ring, Mask, Card, Cup, Crown, Chain, Dice, Bell, Lamp, Orb, Veil,
      Tomb`),
  virtues: parts(`
      Greed, Desires, Extravagance, Duality, Moon, Sun, the Haunted, Orichalcos, Prosperity, Avarice, Fortune, Silence,
      Destiny, Judgment, Dimensions, Time, Chaos, Light, Darkness, the Abyss, the Pharaoh, Anubis, Kings, Souls, Dragons,
      Dreams, Fate, Wisdom, Rebirth, Revealing Light`),
  trapWords: parts(`
      Mirror, Dimensional, Torrential, Solemn, Infinite, Magic, Sakuretsu, Compulsory, Bottomless, Raigeki, Divine, Phantom,
      Forbidden, Twin, Ultimate, Emergency, Dark, Shadow, Royal, Trap`),
  trapThings: parts(`
      Force, Prison, Tribute, Judgment, Warning, Impermanence, Cylinder, Armor, Evacuation, Hole, Break, Wrath, Chalice,
      Twister, Offering, Teleportation, Ruler, Decree, Pit, Stun`),
};
