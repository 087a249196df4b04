import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The server's tests in tiers (README, Tests), told apart by what a file uses, so a new file lands in its tier
 * without being listed anywhere:
 * - stores: loops over `DATABASES` (support/databases.ts); the only tier on SQLite, PostgreSQL and MySQL.
 * - process: starts processes (node:child_process, support/spawned.ts, the start-memory bench).
 * - http: starts a gateway in the test's process (startServer, startInstances, createContext, buildApp).
 * - unit: everything else (pure functions on recorded fixtures).
 */
type Tier = 'unit' | 'http' | 'stores' | 'process';
const SERVER_TESTS = './server/test';

function tierOf(text: string): Tier {
  if (/\bDATABASES\b/.test(text)) return 'stores';
  if (/node:child_process|support\/spawned\.ts|bench\/start-memory/.test(text)) return 'process';
  if (/\b(startServer|startInstances|createContext|buildApp)\b/.test(text)) return 'http';
  return 'unit';
}

function serverTests(): Record<Tier, string[]> {
  const out: Record<Tier, string[]> = { unit: [], http: [], stores: [], process: [] };
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'fixtures' && e.name !== 'support') walk(path);
      } else if (e.name.endsWith('.test.ts')) {
        out[tierOf(readFileSync(path, 'utf8'))].push(relative(SERVER_TESTS, path));
      }
    }
  };
  walk(SERVER_TESTS);
  return out;
}
const tiers = serverTests();

/** A server project of one tier: the same root and environment for all, so a file moves by what it uses. */
const server = (tier: Tier, extra: Record<string, unknown> = {}) => ({
  test: {
    name: `server-${tier}`,
    root: './server',
    include: tiers[tier].map((f) => `test/${f}`),
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks' as const,
    ...extra,
  },
});

// One runner for every package; each project keeps its own environment.
export default defineConfig({
  test: {
    projects: [
      server('unit'),
      server('http'),
      server('stores'),
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
