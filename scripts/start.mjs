#!/usr/bin/env node
// `npm start`: builds the web console if it has not been built, bundles the server, then runs the bundle in
// this same process, so the server is the only Node process besides npm's own. The builds run in child
// processes that end before the server starts, so none of their code stays in the server's memory. The node
// flags and MALLOC_ARENA_MAX come from package.json's start script: node and glibc read them before any script
// runs; its `exec` replaces npm's shell, so npm's signals (SIGTERM, SIGINT) reach the server itself.
// Without a POSIX shell (Windows):
//   node --max-semi-space-size=8 --heap-growing-percent=50 --no-wasm-dynamic-tiering --no-wasm-tier-up --no-allocation-site-pretenuring scripts/start.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SERVER_NODE_FLAGS } from './server-runtime.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const missing = SERVER_NODE_FLAGS.filter((f) => !process.execArgv.includes(f));
if (missing.length)
  console.warn(`note: node was started without ${missing.join(' ')}; use npm start for the production flags`);

if (!existsSync(`${root}web/dist/index.html`)) {
  console.log('Building the web console (first start)…');
  run('npm', ['run', 'build']);
}
run(process.execPath, [`${root}scripts/server-runtime.mjs`]);
await import(pathToFileURL(`${root}server/dist/main.js`).href);
