import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/support/long-files-first.js';

export default defineConfig({
  test: {
    // Three files at a time on two cores: most files wait on their servers part of the time, and a
    // third worker fills that (the machine was busy 96% of the run with three, 87% with two). Four
    // starved the three-node cluster test's indexer while its writer committed 50 transactions a
    // second (it fell 200,000 changes behind in a fresh clone's run).
    maxWorkers: 3,
    // As many as the most: tinypool shrinks an idle pool down to minWorkers, and a worker it
    // retires while vitest hands it the next file fails the run ("Terminating worker thread").
    minWorkers: 3,
    // A worker process runs file after file instead of one process per file: starting one (Node,
    // vitest's runtime, the packages a file imports: pg, the Elasticsearch client, express) took
    // about 0.9 CPU-seconds a file, 56 against 33 CPU-seconds over 26 short integration files.
    // Whether a file sees fresh modules is each project's `isolate` below: the pool-wide setting
    // only decides whether the process is reused (a project's own setting does not).
    poolOptions: { forks: { isolate: false } },
    // The longest files start first, so the run's critical path begins at its start.
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // Pure code, no module mocks, no process-wide state (metrics registries are per app):
          // the files share their workers' module cache instead of each importing the code again.
          isolate: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Each file gets its own database and index prefix, so files may run side by side. Each
          // imports this repository's modules afresh (module state such as caches and breakers
          // never crosses files); the packages in node_modules stay loaded in the worker.
          isolate: true,
        },
      },
    ],
  },
});
