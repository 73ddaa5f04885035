import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS } from '../../support/entry-points-build.js';

// Integration tests start processes from a bundle of these entry points instead of through tsx:
// each must be what an npm script runs, so a test's process is the one operators start.
const scripts: Record<string, string> = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).scripts;
const npmEntries = new Set(Object.values(scripts).flatMap((s) => s.split(/\s+/).filter((w) => w.endsWith('.ts'))));

describe('the entry points tests start as processes', () => {
  it.each(ENTRY_POINTS)('%s is the entry of an npm script', (entry) => {
    expect(npmEntries).toContain(entry);
  });
});
