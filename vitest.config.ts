import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Two cores: at most two test files at a time.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
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
