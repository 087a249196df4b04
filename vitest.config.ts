import { defineConfig } from 'vitest/config';

// One runner for every package; each project keeps its own environment.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          root: './server',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'shared',
          root: './packages/shared',
          include: ['test/**/*.test.ts'],
          environment: 'node',
        },
      },
      './web/vitest.config.ts',
      {
        test: {
          name: 'e2e',
          root: './e2e',
          include: ['tests/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // A browser on a machine busy with other runs can take seconds to show a result (vitest's default
          // poll gives up after 1 s); poll.ts's helper and every bare expect.poll get the same room.
          expect: { poll: { timeout: 10_000, interval: 100 } },
          fileParallelism: false,
          pool: 'forks',
        },
      },
    ],
  },
});
