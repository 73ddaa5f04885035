import { nativeOfferDoc, productFields } from '../src/search/documents/builders.js';
import type { OfferDoc } from '../src/search/documents/model.js';

// The bulk writer's fast path for native offer documents (bulk.ts): JSON.stringify(doc) byte for
// byte, with the parts a product's offers share (the product's fields and item; the disclosures
// and fulfillment obligation) made once as UTF-8 bytes and copied instead of encoded per offer.
// No key order is written here: the layout is read from a document nativeOfferDoc builds, the one
// place it is written, and the writers are generated from it when this module loads.

/** A native offer document's JSON in four pieces, in order: text, bytes, text, bytes. */
export type OfferDocPieces = [head: string, product: Uint8Array, offer: string, tail: Uint8Array];

/** The stored offer's last keys, objects many offers share: written from bytes made once. */
const SHARED_TAIL = ['disclosures', 'fulfillmentObligation'] as const;

/** A native offer document's keys, split where the shared parts begin and end. */
export interface OfferLayout {
  /** The document's keys before its product's fields. */
  head: string[];
  /** The product's fields (ProductFields), `item` last: one shared piece. */
  product: string[];
  /** The stored offer's keys before SHARED_TAIL. */
  offer: string[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Where the keys of a document shaped like `d` fall. Throws when the builder's shape no longer
 * has the pieces this writer assumes (the product's fields together, `offer` last, SHARED_TAIL
 * last in it): the module then fails to load, so every test of the bulk writer fails with it.
 */
export function offerLayout(d: OfferDoc): OfferLayout {
  const keys = Object.keys(d);
  const product = Object.keys(productFields(d.productId, undefined));
  const offer = Object.keys(d.offer);
  const start = keys.indexOf(product[0]!);
  const tailAt = offer.length - SHARED_TAIL.length;
  const fits =
    start > 0 &&
    product.at(-1) === 'item' &&
    product.every((k, i) => keys[start + i] === k) &&
    keys.length === start + product.length + 1 &&
    keys.at(-1) === 'offer' &&
    SHARED_TAIL.every((k, i) => offer[tailAt + i] === k) &&
    [...keys, ...offer].every((k) => IDENTIFIER.test(k));
  if (!fits) throw new Error(`offer-json: native offer documents no longer fit the writer's pieces (keys ${keys}; offer ${offer})`);
  return { head: keys.slice(0, start), product, offer: offer.slice(0, tailAt) };
}

// The JSON of the few distinct strings offers repeat (stores, sellers, sku values, enums): a
// lookup costs a third of JSON.stringify on 14 strings an offer. Bounded for the live indexer.
const jsonOfText = new Map<string, string>();

/** JSON of a scalar as JSON.stringify writes it (other values are left to JSON.stringify). */
function json(v: unknown): string {
  switch (typeof v) {
    case 'string': {
      let j = jsonOfText.get(v);
      if (j === undefined) {
        if (jsonOfText.size >= 50_000) jsonOfText.clear();
        jsonOfText.set(v, (j = JSON.stringify(v)));
      }
      return j;
    }
    case 'number':
      return Number.isFinite(v) ? `${v}` : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return v === null ? 'null' : JSON.stringify(v);
  }
}

/**
 * `"k1":v1,"k2":v2,...` for `keys` of objects shaped like `sample`, as one generated expression of
 * direct property reads (a loop over the keys reads them markedly slower: keyed loads of varying
 * names). Plain objects among the sample's values (poBoxDelivery) are written the same way, nested.
 * Keys are identifiers (offerLayout checks) and enter the code only as JSON string literals.
 */
function membersWriter(sample: object, keys: readonly string[]): (o: object) => string {
  const members = (s: object, ks: readonly string[], path: string): string =>
    ks
      .map((k, i) => {
        const key = JSON.stringify(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
        const at = `${path}[${JSON.stringify(k)}]`;
        const v = (s as Record<string, unknown>)[k];
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return `${key} + json(${at})`;
        const inner = Object.keys(v);
        return inner.length === 0 ? `${key} + json(${at})` : `${key} + (${at} === null ? 'null' : '{' + ${members(v, inner, at)} + '}')`;
      })
      .join(' + ');
  return new Function('json', `return (o) => ${members(sample, keys, 'o')};`)(json) as (o: object) => string;
}

/** `a[k] === b[k]` for every key, generated like membersWriter. */
function sameOn(keys: readonly string[]): (a: object, b: object) => boolean {
  const test = keys.map((k) => `a[${JSON.stringify(k)}] === b[${JSON.stringify(k)}]`).join(' && ') || 'true';
  return new Function(`return (a, b) => ${test};`)() as (a: object, b: object) => boolean;
}

/** A document nativeOfferDoc builds, for its layout: any facts do, every native offer has the same keys. */
const sample = nativeOfferDoc(
  { sellerId: 1, skuId: 1, price: 1, available: 1 },
  { skuId: 1, productId: 1, condition: null, language: null, finish: null },
  { sellerId: 1, sellerCode: 'a', storeName: 'A', vacation: false, browseEligible: true, poBoxDelivery: 'available' },
  undefined,
  false,
);
const layout = offerLayout(sample);
const writeHead = membersWriter(sample, layout.head);
const writeOffer = membersWriter(sample.offer, layout.offer);
const productKeys = layout.product.filter((k) => k !== 'item');
const sameProduct = sameOn(productKeys);

// Buffer.from: small ones share 8 kB slabs, so 250,000 product parts are not 250,000 ArrayBuffers for the collector to track.
const utf8 = (s: string): Uint8Array => Buffer.from(s);

// The shared pieces, made once and kept as UTF-8 bytes. The objects they are made from are never
// modified after they are built.
const productPartOf = new WeakMap<object, { fields: object; bytes: Uint8Array }>();
const tailOf = new WeakMap<object, { obligation: unknown; bytes: Uint8Array }>();

/** The product's fields and item with their trailing comma: made once per item object. */
function productPart(d: OfferDoc): Uint8Array {
  const part = productPartOf.get(d.item);
  // A document whose other product fields differ from the item's first one gets its own bytes.
  if (part && sameProduct(part.fields, d)) return part.bytes;
  const fields: Record<string, unknown> = {};
  for (const k of layout.product) fields[k] = d[k as keyof OfferDoc];
  const bytes = utf8(`${JSON.stringify(fields).slice(1, -1)},`);
  productPartOf.set(d.item, { fields, bytes });
  return bytes;
}

/** The stored offer's shared last members and the two closing braces: made once per disclosures object. */
function offerTail(o: OfferDoc['offer']): Uint8Array {
  const [first, second] = SHARED_TAIL;
  // Keyed by the disclosures object (one per category); null has its own key.
  const key = o[first] ?? tailOf;
  const got = tailOf.get(key);
  if (got && got.obligation === o[second]) return got.bytes;
  const bytes = utf8(`${JSON.stringify(first)}:${JSON.stringify(o[first])},${JSON.stringify(second)}:${JSON.stringify(o[second])}}}`);
  tailOf.set(key, { obligation: o[second], bytes });
  return bytes;
}

/**
 * JSON.stringify(d) of a native offer document as pieces (unit test: offer-json.test.ts). Null for
 * other documents, handoff offers included, and for a native one with its store's counters on the
 * offer (not nativeOfferDoc's shape): JSON.stringify writes those.
 */
export function offerDocPieces(d: OfferDoc): OfferDocPieces | null {
  const o = d.offer;
  if (d.lane !== 'native' || o.lane !== 'native' || o.salesCount !== undefined || o.reviewScore !== undefined) return null;
  return [`{${writeHead(d)},`, productPart(d), `"offer":{${writeOffer(o)},`, offerTail(o)];
}

/** JSON.stringify(d) of an offer document, from its pieces where it has them. */
export function offerDocJson(d: OfferDoc): string {
  const p = offerDocPieces(d);
  if (!p) return JSON.stringify(d);
  const text = new TextDecoder();
  return p[0] + text.decode(p[1]) + p[2] + text.decode(p[3]);
}
