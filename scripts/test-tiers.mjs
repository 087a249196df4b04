// The server's tests in tiers (README, Tests), told apart by what a file uses, so that a new file lands in
// its tier without being listed anywhere. Used by vitest.config.ts (one project per tier) and by
// scripts/test.mjs (time spent per tier).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * - stores: loops over `DATABASES` (server/test/support/databases.ts): the only tier on SQLite, PostgreSQL
 *   and MySQL.
 * - process: starts processes (node:child_process, support/spawned.ts, the start-memory bench).
 * - http: starts a gateway in the test's process (startServer, startInstances, createContext, buildApp), itself
 *   or through the helpers it imports from server/test/support/ (the provider harness, a shared gateway setup).
 * - unit: everything else (pure functions on recorded fixtures).
 */
export function tierOf(text, helpersText = '') {
  if (/\bDATABASES\b/.test(text)) return 'stores';
  if (/node:child_process|support\/spawned\.ts|bench\/start-memory/.test(text)) return 'process';
  if (STARTS_GATEWAY.test(text) || STARTS_GATEWAY.test(helpersText)) return 'http';
  return 'unit';
}

const STARTS_GATEWAY = /\b(startServer|startInstances|createContext|buildApp)\b/;

/**
 * The text of the server/test/support/ files a test file imports, and of the support files those import: a test
 * that starts its gateway through a shared helper is an HTTP test like one that calls startServer itself.
 */
function helpersOf(path, text, seen = new Set()) {
  let out = '';
  for (const m of text.matchAll(/from '(\.{1,2}\/[^']*support\/[^']+\.ts|\.\/[^']+\.ts)'/g)) {
    const target = resolve(dirname(path), m[1]);
    if (seen.has(target) || !target.includes(`${join('test', 'support')}`) || !existsSync(target)) continue;
    seen.add(target);
    const body = readFileSync(target, 'utf8');
    out += `${body}\n${helpersOf(target, body, seen)}`;
  }
  return out;
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
        const text = readFileSync(path, 'utf8');
        out[tierOf(text, helpersOf(path, text))].push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return out;
}
