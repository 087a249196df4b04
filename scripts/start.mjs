#!/usr/bin/env node
// `npm start`: builds the web console if it has not been built and bundles the server, then serves API and
// console on one port.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildServer, SERVER_ENV, SERVER_NODE_FLAGS } from './server-runtime.mjs';

if (!existsSync('web/dist/index.html')) {
  console.log('Building the web console (first start)…');
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const main = await buildServer();
const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--enable-source-maps', main], {
  stdio: 'inherit',
  env: { ...SERVER_ENV, ...process.env },
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.kill(sig));
server.on('exit', (code) => process.exit(code ?? 0));
