import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../../../../clients/typescript/codegen/from-app.js';
import { generateTypes } from '../../../../clients/typescript/codegen/generate.js';

describe("the client's generated types", () => {
  it('are what the OpenAPI document the API serves generates now (npm run client:types regenerates them)', async () => {
    const committed = await readFile(CLIENT_TYPES_FILE, 'utf8');
    expect(committed).toBe(await clientTypesSource());
  });

  it('turn each schema form the document uses into its TypeScript type', () => {
    const source = generateTypes({
      info: { version: '2026-07' },
      paths: {
        '/things/{id}': {
          post: {
            summary: 'A thing',
            parameters: [
              { name: 'X-Header', in: 'header', schema: { type: 'string' } },
              { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'tags', in: 'query', schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['n'],
                    properties: { n: { type: 'integer' }, kind: { enum: ['a', 'b'] }, note: { type: ['string', 'null'] } },
                    additionalProperties: false,
                  },
                },
              },
            },
            responses: { 200: { content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } }, required: ['ok'] } } } } },
          },
        },
      },
    });
    expect(source).toContain('export const API_VERSION = "2026-07";');
    expect(source).toContain('"POST /things/{id}": {');
    expect(source).toContain('    path: {\n      id: string;\n    };');
    expect(source).toContain('tags?: string | string[];');
    expect(source).not.toContain('X-Header');
    expect(source).toContain('n: number;');
    expect(source).toContain('kind?: "a" | "b";');
    expect(source).toContain('note?: string | null;');
    expect(source).toContain('bodyRequired: true;');
    expect(source).toContain('ok: true;');
  });
});
