import { z } from 'zod';
import * as buyer from '../../contract/buyer.js';
import * as seller from '../../contract/seller.js';
import * as orders from '../../contract/orders.js';
import { CURRENT_API_VERSION } from '../middleware/api-version.js';

// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and type
// responses (zod's JSON Schema output is draft 2020-12, which OpenAPI 3.1 uses as is).

type Json = Record<string, unknown>;

interface Operation {
  method: 'get' | 'post' | 'patch';
  path: string;
  summary: string;
  tag: 'buyer' | 'seller';
  auth: boolean;
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may be omitted (POST /orders/{orderId}/cancel). */
  bodyOptional?: boolean;
  response: z.ZodType;
  degradable?: boolean;
  errors: number[];
}

const operations: Operation[] = [
  {
    method: 'get',
    path: '/products/{productId}',
    summary: 'Every shown offer of one product, cheapest first, and the Product block',
    tag: 'buyer',
    auth: false,
    pathParams: buyer.productParamsSchema,
    query: buyer.productQuerySchema,
    response: buyer.productResponseSchema,
    degradable: true,
    errors: [400, 429, 503],
  },
  {
    method: 'get',
    path: '/search',
    summary: 'Products with shown offers matching the filters, with disjunctive facets and a cursor',
    tag: 'buyer',
    auth: false,
    query: buyer.searchQuerySchema,
    response: buyer.searchResponseSchema,
    degradable: true,
    errors: [400, 429, 503],
  },
  {
    method: 'get',
    path: '/search/suggest',
    summary: 'Product names completing what a buyer types, typo-tolerant, with their /search totals, and a correction when the text lists nothing',
    tag: 'buyer',
    auth: false,
    query: buyer.suggestQuerySchema,
    response: buyer.suggestionsSchema,
    degradable: true,
    errors: [400, 429, 503],
  },
  {
    method: 'post',
    path: '/lines/lookup',
    summary: 'Cart line lookup: one result per (sellerId, skuId) pair, in request order',
    tag: 'buyer',
    auth: false,
    body: buyer.lookupBodySchema,
    response: buyer.lookupResponseSchema,
    degradable: true,
    errors: [400, 429, 503],
  },
  {
    method: 'post',
    path: '/listings',
    summary: 'Desired-state upsert of one listing or an array of listings',
    tag: 'seller',
    auth: true,
    body: z.union([seller.listingUpsertItemSchema, z.array(seller.listingUpsertItemSchema).max(1000)]),
    response: seller.listingWriteResponseSchema,
    errors: [400, 401, 409, 413, 429],
  },
  {
    method: 'post',
    path: '/listings/bulk',
    summary: 'Bulk upsert/delete of up to 1000 listings',
    tag: 'seller',
    auth: true,
    body: z.strictObject({ items: z.array(seller.bulkItemSchema).max(1000) }),
    response: seller.listingWriteResponseSchema,
    errors: [400, 401, 409, 413, 429],
  },
  {
    method: 'post',
    path: '/listings/purge',
    summary: 'Soft-delete every live listing of the seller',
    tag: 'seller',
    auth: true,
    response: seller.purgeResponseSchema,
    errors: [401, 409, 429],
  },
  {
    method: 'get',
    path: '/listings',
    summary: 'Export of the stored listings, keyset-paginated on (updatedAt, id)',
    tag: 'seller',
    auth: true,
    query: seller.listingsExportQuerySchema,
    response: seller.listingsExportResponseSchema,
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/me',
    summary: 'Store status, counts and readiness',
    tag: 'seller',
    auth: true,
    response: seller.storeStatusSchema,
    errors: [401, 429],
  },
  {
    method: 'patch',
    path: '/me',
    summary: 'Toggle vacation',
    tag: 'seller',
    auth: true,
    body: seller.patchMeBodySchema,
    response: seller.storeStatusSchema,
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/orders',
    summary: "Poll the seller's orders, oldest change first; never misses a change when walked from the last cursor",
    tag: 'seller',
    auth: true,
    query: orders.ordersPollQuerySchema,
    response: orders.ordersPollResponseSchema,
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/orders/{orderId}',
    summary: 'One order (the same body as a poll item and the webhook data)',
    tag: 'seller',
    auth: true,
    pathParams: orders.orderParamsSchema,
    response: orders.orderSchema,
    errors: [401, 404, 429],
  },
  {
    method: 'patch',
    path: '/orders/{orderId}/fulfillment',
    summary: 'Move an order forward (accepted, shipped with tracking, delivered)',
    tag: 'seller',
    auth: true,
    pathParams: orders.orderParamsSchema,
    body: orders.fulfillmentBodySchema,
    response: orders.orderSchema,
    errors: [400, 401, 404, 422, 429],
  },
  {
    method: 'post',
    path: '/orders/{orderId}/cancel',
    summary: 'Cancel the whole order (no body) or some lines; restocks and emits the cancel event',
    tag: 'seller',
    auth: true,
    pathParams: orders.orderParamsSchema,
    body: orders.cancelBodySchema,
    bodyOptional: true,
    response: orders.orderSchema,
    errors: [400, 401, 404, 422, 429],
  },
];

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
};

const ERROR_TEXT: Record<number, string> = {
  400:
    'INVALID_REQUEST (details name each bad field; also a malformed or too deeply nested JSON body), or UNSUPPORTED_API_VERSION when X-Service-Api-Version is present and not ' +
    CURRENT_API_VERSION,
  401: 'UNAUTHORIZED: missing, malformed, unknown or revoked key',
  409: "SELLER_SOURCE_EXCLUSIVE: the seller's inventory source is not `platform`",
  404: "ORDER_NOT_FOUND: no such order for this seller (another seller's id included)",
  413: 'BATCH_TOO_LARGE: more than 1000 items; or INVALID_REQUEST: the body is larger than this route accepts',
  422: 'INVALID_TRANSITION: the move violates the order lifecycle; or INVALID_REQUEST: dispatch evidence conflicts with the frozen shipping option',
  431: 'INVALID_REQUEST: the request line and headers are larger than the server accepts (e.g. a very long query string)',
  429: 'RATE_LIMITED (per key, per client address, failed authentications, or concurrent writes of one seller); see Retry-After',
  503: 'SERVICE_UNAVAILABLE: PostgreSQL (or, for buyer reads, the index, the last-good cache and PostgreSQL) could not answer in time; see Retry-After',
};

/**
 * Every route checks the version header (400), is rate-limited (429), needs PostgreSQL (503) and
 * can get a request line too long for the server (431); a body can be too large (413).
 */
const statusesOf = (op: Operation): number[] => [...new Set([400, 429, 431, 503, ...(op.body ? [413] : []), ...op.errors])].sort((a, b) => a - b);

const BODY_TEXT =
  "Unknown fields are rejected: a 400 for the request envelope; on a listing write, the upsert item's `rejected` result " +
  '(a delete item needs only skuId and ignores listing fields sent along).';

function parameters(op: Operation): Json[] {
  const out: Json[] = [
    {
      name: 'X-Service-Api-Version',
      in: 'header',
      required: false,
      description: `Absent or ${CURRENT_API_VERSION}; anything else is 400 UNSUPPORTED_API_VERSION`,
      schema: { type: 'string', enum: [CURRENT_API_VERSION] },
    },
  ];
  for (const [where, obj] of [
    ['path', op.pathParams],
    ['query', op.query],
  ] as const) {
    if (!obj) continue;
    const schema = jsonSchema(obj, 'input') as { properties?: Record<string, Json>; required?: string[] };
    // A query integer arrives as digits and is range-checked after parsing: its output schema
    // (integer, minimum, maximum) is what a client must send, where the input one is only a pattern.
    const output = where === 'query' ? (jsonSchema(obj, 'output') as { properties?: Record<string, Json> }) : {};
    for (const [name, input] of Object.entries(schema.properties ?? {})) {
      const out2 = output.properties?.[name];
      const s = out2?.type === 'integer' ? out2 : input;
      out.push({
        name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        ...(s.description ? { description: s.description } : {}),
        schema: s,
        ...(where === 'query' ? { style: 'form', explode: true } : {}),
      });
    }
  }
  return out;
}

export function openApiDocument(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) {
    const success: Json = {
      type: 'object',
      required: ['success', 'data'],
      properties: {
        success: { const: true },
        ...(op.degradable ? { degraded: { const: true, description: 'Present only in Degraded Mode' } } : {}),
        data: jsonSchema(op.response, 'output'),
      },
    };
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      tags: [op.tag],
      ...(op.auth ? { security: [{ sellerKey: [] }] } : { security: [] }),
      parameters: parameters(op),
      ...(op.body
        ? {
            requestBody: { required: !op.bodyOptional, description: BODY_TEXT, content: { 'application/json': { schema: jsonSchema(op.body, 'input') } } },
          }
        : {}),
      responses: {
        200: { description: 'Success envelope', content: { 'application/json': { schema: success } } },
        ...Object.fromEntries(
          statusesOf(op).map((s) => [
            s,
            { description: ERROR_TEXT[s], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          ]),
        ),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketplace search-and-read service',
      version: CURRENT_API_VERSION,
      description: 'Buyer reads (no authentication) and the seller integration API. Every JSON response is an envelope.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'buyer', description: 'Public buyer-facing reads' },
      { name: 'seller', description: 'Seller integration API (bearer key)' },
    ],
    paths,
    components: {
      securitySchemes: { sellerKey: { type: 'http', scheme: 'bearer', description: 'mp_{sellerCode}_{hex}' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['success', 'error'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
            },
          },
        },
      },
    },
  };
}
