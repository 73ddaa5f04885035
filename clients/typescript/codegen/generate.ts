// Turns the API's OpenAPI 3.1 document into TypeScript types: one entry per operation, keyed
// "METHOD /path", with its path and query parameters, request body and success envelope. The
// document uses a small part of JSON Schema (zod's output), and that part is all this handles;
// anything else is typed `unknown` rather than guessed.

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}
interface OperationObject {
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
export interface Document {
  info: { version: string };
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema> };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const comment = (text: unknown, indent: string): string => (typeof text === 'string' && text ? `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n` : '');
const union = (parts: string[]): string => {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
};
const wrap = (t: string): string => (t.includes(' | ') || t.includes(' & ') ? `(${t})` : t);

function typeOf(s: Schema | undefined, indent: string): string {
  if (s === undefined) return 'unknown';
  if (typeof s.$ref === 'string') return `Components[${JSON.stringify(s.$ref.replace('#/components/schemas/', ''))}]`;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[k])) return union((s[k] as Schema[]).map((x) => wrap(typeOf(x, indent))));
  }
  if (Array.isArray(s.type)) return union((s.type as string[]).map((t) => wrap(typeOf({ ...s, type: t }, indent))));
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(typeOf(s.items as Schema | undefined, indent))}[]`;
    case 'object':
      return objectType(s, indent);
    default:
      return 'unknown';
  }
}

function objectType(s: Schema, indent: string): string {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(props).map(
    ([name, p]) => `${comment(p.description, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(p, inner)};\n`,
  );
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: ${extra === true ? 'unknown' : typeOf(extra as Schema, inner)};\n`);
  if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${lines.join('')}${indent}}`;
}

function parametersType(params: Parameter[], where: string, indent: string): string {
  const own = params.filter((p) => p.in === where);
  if (own.length === 0) return 'never';
  return objectType(
    {
      properties: Object.fromEntries(own.map((p) => [p.name, { ...p.schema, description: p.description ?? p.schema.description }])),
      required: own.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    },
    indent,
  );
}

/** The TypeScript source of the document's types (the caller formats and writes it). */
export function generateTypes(doc: Document): string {
  const out: string[] = [
    '// Generated from the OpenAPI document the API serves (GET /openapi.json) by',
    '// clients/typescript/codegen (npm run client:types). Do not edit: regenerate.',
    '',
    `/** The dated API version the document describes (sent as X-Service-Api-Version). */`,
    `export const API_VERSION = ${JSON.stringify(doc.info.version)};`,
    '',
  ];
  out.push('export interface Components {');
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) out.push(`  ${key(name)}: ${typeOf(schema, '  ')};`);
  out.push('}', '');
  out.push('export interface Operations {');
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const body = op.requestBody?.content?.['application/json']?.schema;
      const success = op.responses?.['200']?.content?.['application/json']?.schema;
      out.push(
        `${comment(op.summary, '  ')}  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {`,
        `    path: ${parametersType(params, 'path', '    ')};`,
        `    query: ${parametersType(params, 'query', '    ')};`,
        `    body: ${body ? typeOf(body, '    ') : 'never'};`,
        `    bodyRequired: ${op.requestBody?.required === true};`,
        `    response: ${typeOf(success, '    ')};`,
        '  };',
      );
    }
  }
  out.push('}', '');
  return out.join('\n');
}
