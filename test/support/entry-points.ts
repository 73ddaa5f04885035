import path from 'node:path';
import { inject } from 'vitest';
import { entryPointsDir, type EntryPoint } from './entry-points-build.js';

// In the test workers; the global setup builds with ./entry-points-build.ts (it may not import vitest).

/** The arguments after `node` that start `entry`: its bundled file, built by the global setup. */
export function entryArgs(entry: EntryPoint): string[] {
  return [path.join(entryPointsDir(inject('runId')), entry.replace(/\.ts$/, '.mjs'))];
}
