import { defineConfig } from 'vitest/config';
import { serverTestsByTier } from './scripts/test-tiers.mjs';

/**
 * The server's tests in tiers (README, Tests), one project each; scripts/test-tiers.mjs places a file by what
 * it uses: stores (loops over DATABASES; the only tier on PostgreSQL and MySQL), process (starts processes),
 * http (a gateway in the test's process, on SQLite), unit (the rest).
 */
type Tier = 'unit' | 'http' | 'stores' | 'process';
const tiers: Record<Tier, string[]> = serverTestsByTier('./server/test');

/** A server project of one tier: the same root and environment for all, so a file moves by what it uses. */
const server = (tier: Tier, extra: Record<string, unknown> = {}) => ({
  test: {
    name: `server-${tier}`,
    root: './server',
    include: tiers[tier].map((f) => `test/${f}`),
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A bare expect.poll waits up to 10 s (vitest's 1 s is too short for a background job on a busy machine).
    expect: { poll: { timeout: 10_000, interval: 50 } },
    pool: 'forks' as const,
    ...extra,
  },
});

// One runner for every package; each project keeps its own environment.
export default defineConfig({
  test: {
    // Vitest's default on 2 cores is one worker; the tests mostly wait (sockets, databases, timers), so two
    // files at a time use the machine instead of leaving a core idle.
    maxWorkers: 2,
    projects: [
      // Pure functions: one module graph per worker for all of them (no server, no global state to reset).
      server('unit', { isolate: false }),
      // One module graph per worker as well (SERVER_ISOLATE=1 for a fresh process per file): loading the server
      // afresh for each file was more than half of these tiers' time; each file closes its gateways at its end.
      server('http', { isolate: process.env.SERVER_ISOLATE === '1' }),
      server('stores', { isolate: process.env.SERVER_ISOLATE === '1' }),
      // One at a time: each spawns gateways (and bundles the server) and measures what a process uses.
      server('process', { fileParallelism: false }),
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
          // One chromium for the whole run (support/browser.ts connects to it; each file opens its own context).
          globalSetup: ['./support/global-setup.ts'],
          // Closes what support/console.ts opened for a file, after the file's own afterAll.
          setupFiles: ['./support/after-file.ts'],
          // A browser on a machine busy with other runs can take seconds to show a result (vitest's default
          // poll gives up after 1 s); poll.ts's helper and every bare expect.poll get the same room.
          expect: { poll: { timeout: 10_000, interval: 100 } },
          // After the other tiers (their own group), three files at a time (E2E_WORKERS), each with its own gateway
          // and browser context in the one chromium: a file spends much of its time waiting on the page and the
          // server, which the other files fill. A worker runs its files one after another in one module graph
          // (E2E_ISOLATE=1 for a fresh process per file): loading the server and playwright afresh was about a
          // third of the tier's time, and each file closes its gateway and contexts at its end.
          pool: 'forks',
          sequence: { groupOrder: 1 },
          maxWorkers: Number(process.env.E2E_WORKERS) || 3,
          isolate: process.env.E2E_ISOLATE === '1',
        },
      },
    ],
  },
});
