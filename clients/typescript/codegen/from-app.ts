// The generated types as the repository holds them: the document built in-process (the same
// function GET /openapi.json answers with), generated, and formatted with the repository's Prettier
// settings, so the committed file and a fresh generation compare as text.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { openApiDocument } from '../../../src/api/openapi/document.js';
import { generateTypes } from './generate.js';

export const CLIENT_TYPES_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/generated/openapi.ts');

/** Generated source as the repository's Prettier settings lay it out. */
export async function formatTypes(source: string): Promise<string> {
  const config = await prettier.resolveConfig(CLIENT_TYPES_FILE);
  return prettier.format(source, { ...config, filepath: CLIENT_TYPES_FILE });
}

export async function clientTypesSource(): Promise<string> {
  return formatTypes(generateTypes(openApiDocument() as unknown as Parameters<typeof generateTypes>[0]));
}
