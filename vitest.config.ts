import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/support/long-files-first.js';

export default defineConfig({
  test: {
    // Three files at a time on two cores: most files wait on their servers part of the time, and a
    // third worker fills that (the machine was busy 96% of the run with three, 87% with two). Four
    // starved the three-node cluster test's indexer while its writer committed 50 transactions a
    // second (it fell 200,000 changes behind in a fresh clone's run).
    maxWorkers: 3,
    minWorkers: 1,
    // The longest files start first, so the run's critical path begins at its start.
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // Pure code, no module mocks, no process-wide state (metrics registries are per app):
          // the files share their workers' module cache instead of each importing the code again
          // (the unit run took 33 CPU-seconds isolated, 11 shared).
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
          // Each file gets its own database and index prefix, so files may run side by side.
        },
      },
    ],
  },
});
