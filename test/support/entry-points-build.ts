import { readFile, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

// The processes integration tests start (the API, the indexer, the dispatcher, the ops scripts) run
// from one esbuild bundle of their entry points, built once per run by the global setup, instead of
// through tsx: a tsx start compiles and resolves every module through its loader again (about 1
// CPU-second a start; 0.4 from the bundle), and a run starts such processes dozens of times on a
// busy two-core machine. The code is the same: tsx transforms it with the same esbuild.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every entry point a test starts as a process, as `npm run` names it in package.json. */
export const ENTRY_POINTS = [
  'src/main.ts',
  'indexer/main.ts',
  'dispatcher/main.ts',
  'scripts/reindex.ts',
  'scripts/indices.ts',
  'scripts/fixture-load.ts',
  'scripts/sample.ts',
  'scripts/webhooks-redeliver.ts',
] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

// Modules find their files (mappings, migrations, the storefront's sources) from import.meta.url:
// inside a bundle that would be the bundle's chunk, so each module keeps its own source's URL.
const ownUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/** Bundles ENTRY_POINTS into `outdir` (packages stay imports from node_modules, found from there). */
export async function buildEntryPoints(outdir: string): Promise<void> {
  await build({
    entryPoints: ENTRY_POINTS.map((e) => path.join(root, e)),
    outbase: root,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    plugins: [ownUrl],
  });
}

const bundlesDir = path.join(root, 'node_modules/.cache/test-entry-points');

/** A fresh directory for one run's bundle, under node_modules so its bare imports resolve there. */
export const entryPointsDir = (runId: string) => path.join(bundlesDir, runId);

export const removeEntryPoints = (runId: string) => rm(entryPointsDir(runId), { recursive: true, force: true });

/** Bundles of runs that never reached their teardown (killed), once a day old: a run in progress is younger. */
export async function pruneStaleEntryPoints(now = Date.now()): Promise<void> {
  const runs = await readdir(bundlesDir).catch(() => [] as string[]);
  for (const run of runs) {
    const dir = path.join(bundlesDir, run);
    const made = await stat(dir).catch(() => undefined); // another run's teardown may remove it first
    if (made && now - made.mtimeMs > 86_400_000) await rm(dir, { recursive: true, force: true });
  }
}
