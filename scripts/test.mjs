#!/usr/bin/env node
// Runs every test (server, shared, web units, browser end-to-end) with one Vitest run and closes with
// the line CI reads: "N passed, N failed, N skipped". The web app is built first: the browser tests
// drive the built app served by the real server.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
const bin = (name) => `node_modules/.bin/${name}`;

if (!process.argv.includes('--no-build')) {
  const build = run('npm', ['run', 'build', '--silent']);
  if (build.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

const out = '.vitest-results.json';
rmSync(out, { force: true });
const extra = process.argv.slice(2).filter((a) => a !== '--no-build');
const res = run(bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out}`,
  ...extra,
]);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests ?? 0;
  failed = (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A test file that fails to load has no test results; count it as a failure.
  for (const file of r.testResults ?? [])
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
} else {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(res.status === 0 && failed === 0 ? 0 : 1);
