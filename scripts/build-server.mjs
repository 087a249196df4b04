#!/usr/bin/env node
// Bundles the server's TypeScript into one ES module (server/dist/main.js) with esbuild; packages stay in
// node_modules. Production runs this file with plain node: no TypeScript loader thread, less memory, no
// compile work at start. `npm start` rebuilds it each time (well under a second), so it is never stale.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Node's flags for the server process (see the README's performance section for why). */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=100'];

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
