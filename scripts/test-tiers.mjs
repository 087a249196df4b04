// The server's tests in tiers (README, Tests), told apart by what a file uses, so that a new file lands in
// its tier without being listed anywhere. Used by vitest.config.ts (one project per tier) and by
// scripts/test.mjs (time spent per tier).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * - stores: loops over `DATABASES` (server/test/support/databases.ts): the only tier on SQLite, PostgreSQL
 *   and MySQL.
 * - process: starts processes (node:child_process, support/spawned.ts, the start-memory bench).
 * - http: starts a gateway in the test's process (startServer, startInstances, createContext, buildApp, or a
 *   support helper that starts one: providerEnv / providerSuite, startThreeChannels).
 * - unit: everything else (pure functions on recorded fixtures).
 */
export function tierOf(text) {
  if (/\bDATABASES\b/.test(text)) return 'stores';
  if (/node:child_process|support\/spawned\.ts|bench\/start-memory/.test(text)) return 'process';
  if (/\b(startServer|startInstances|createContext|buildApp|providerEnv|providerSuite|startThreeChannels)\b/.test(text))
    return 'http';
  return 'unit';
}

/** The server's test files by tier, relative to `dir` (server/test). */
export function serverTestsByTier(dir) {
  const out = { unit: [], http: [], stores: [], process: [] };
  const walk = (at) => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'fixtures' && e.name !== 'support') walk(path);
      } else if (e.name.endsWith('.test.ts')) {
        out[tierOf(readFileSync(path, 'utf8'))].push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return out;
}
