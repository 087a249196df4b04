#!/usr/bin/env node
// How the server runs in production. The TypeScript is bundled into one ES module (server/dist/main.js) by
// esbuild, packages staying in node_modules, and run with plain node: no TypeScript loader thread, less
// memory, no compile work at start. `npm start` rebundles each time (well under a second), so it is never
// stale; `node scripts/server-runtime.mjs` bundles only.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Node's flags for the server process. A young generation of 4 MB semi-spaces and an old generation allowed
 * to grow to one and a half times its live size (V8 allows up to four) keep the peak memory under load near
 * the live set: the relay's garbage is short-lived, and CPU per request did not change measurably (README,
 * Relay performance).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/** Environment for the server process: two malloc arenas instead of one per thread (fewer idle pages held). */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2' };

/** Bundles `entry` (relative to the repository root) into `outfile`. */
export async function buildServer(entry = 'server/src/main.ts', outfile = 'server/dist/main.js') {
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // The shared workspace package is TypeScript source: bundle it instead of importing it at run time.
    alias: { '@modelgate/shared': './packages/shared/src/index.ts' },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
