// Writes the typed client's generated types (clients/typescript/src/generated/openapi.ts) from
// the OpenAPI document the API serves, built in-process as GET /openapi.json builds it.
import { writeFile } from 'node:fs/promises';
import { clientTypesSource, CLIENT_TYPES_FILE } from '../clients/typescript/codegen/from-app.js';

const source = await clientTypesSource();
await writeFile(CLIENT_TYPES_FILE, source);
console.log(`wrote ${CLIENT_TYPES_FILE} (${source.length} characters)`);
