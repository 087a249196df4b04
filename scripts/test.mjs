#!/usr/bin/env node
// Runs every test (server tiers, shared, web units, browser end-to-end) with one Vitest run and closes with
// the line CI reads: "N passed, N failed, N skipped". The web app is built first: the browser tests
// drive the built app served by the real server. Extra arguments go to Vitest (`--project server-http`,
// a file path); `--no-build` skips the build. Before the last line it prints where the time went, per tier.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { serverTestsByTier } from './test-tiers.mjs';

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
  printTierTimes(r.testResults ?? []);
} else {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(res.status === 0 && failed === 0 ? 0 : 1);

/** Seconds spent in each tier's files (summed over files, so parallel workers can add up to more than the wall). */
function printTierTimes(files) {
  const serverDir = resolve('server/test');
  const tierOfFile = new Map();
  for (const [tier, list] of Object.entries(serverTestsByTier(serverDir)))
    for (const f of list) tierOfFile.set(resolve(serverDir, f), tier);
  const spent = {};
  for (const file of files) {
    const rel = relative(process.cwd(), file.name);
    const tier = tierOfFile.get(file.name) ?? (rel.startsWith('e2e/') ? 'browser' : 'unit');
    spent[tier] = (spent[tier] ?? 0) + Math.max(0, (file.endTime ?? 0) - (file.startTime ?? 0)) / 1000;
  }
  const parts = Object.entries(spent).map(([tier, s]) => `${tier} ${Math.round(s)} s`);
  if (parts.length) console.log(`time in test files by tier: ${parts.join(', ')}`);
}
