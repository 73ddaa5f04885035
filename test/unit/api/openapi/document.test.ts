import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../../src/api/openapi/document.js';

// What the OpenAPI document must say for clients and schema-driven fuzzing.
const doc = openApiDocument() as { paths: Record<string, Record<string, any>> };
const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
const param = (path: string, method: string, name: string) =>
  (doc.paths[path]![method].parameters as { name: string; schema: Record<string, unknown> }[]).find((p) => p.name === name)!;

describe('OpenAPI document', () => {
  it('keeps the ranges of integer query parameters', () => {
    expect(param('/listings', 'get', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(param('/search', 'get', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(param('/products/{productId}', 'get', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });

  it('documents the 400 of a bad version header (and 429, 503) on every route', () => {
    expect(operations.length).toBeGreaterThanOrEqual(9);
    for (const { path, method, op } of operations) {
      for (const status of ['400', '429', '431', '503']) expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
      expect(op.responses['400'].description).toMatch(/UNSUPPORTED_API_VERSION/);
    }
  });

  it('says unknown body fields are rejected, and the schemas forbid them', () => {
    const bodies = operations.filter(({ op }) => op.requestBody);
    expect(bodies.length).toBeGreaterThanOrEqual(4);
    for (const { path, method, op } of bodies) {
      expect(op.requestBody.description, `${method} ${path}`).toMatch(/unknown fields are rejected/i);
    }
    const bulk = doc.paths['/listings/bulk']!.post.requestBody.content['application/json'].schema;
    expect(bulk.additionalProperties).toBe(false);
    expect(doc.paths['/me']!.patch.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(doc.paths['/lines/lookup']!.post.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
  });
});
