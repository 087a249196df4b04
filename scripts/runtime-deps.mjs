#!/usr/bin/env node
// The packages the server bundle loads at run time (scripts/server-runtime.mjs EXTERNAL_PACKAGES) with
// everything they depend on, read from package-lock.json: exactly what a production install of the bundle
// needs. `node scripts/runtime-deps.mjs <dir>` copies them to <dir>/node_modules (the container image does
// this); the container-image test starts the bundle from such a folder.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNAL_PACKAGES } from './server-runtime.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Lock paths (`node_modules/pg`, `node_modules/a/node_modules/b`) of the run-time packages and their deps. */
export function runtimePackagePaths(lockFile = join(root, 'package-lock.json')) {
  const packages = JSON.parse(readFileSync(lockFile, 'utf8')).packages;
  // Node's lookup: <from>/node_modules/<name>, then each parent folder's node_modules, up to the root.
  const resolve = (from, name) => {
    for (let dir = from; ; ) {
      const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
      if (packages[candidate] && !packages[candidate].dev) return candidate;
      if (!dir) return undefined;
      const up = dir.lastIndexOf('/node_modules/');
      dir = up < 0 ? '' : dir.slice(0, up);
    }
  };
  const found = new Set();
  const visit = (path) => {
    if (found.has(path)) return;
    found.add(path);
    const p = packages[path];
    const peersOptional = p.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(p.dependencies ?? {}),
      ...Object.keys(p.optionalDependencies ?? {}),
      ...Object.keys(p.peerDependencies ?? {}).filter((n) => !peersOptional[n]?.optional),
    ];
    for (const name of names) {
      const dep = resolve(path, name);
      if (dep) visit(dep); // absent: an optional or platform-specific package this install does not have
    }
  };
  for (const name of EXTERNAL_PACKAGES) {
    const path = resolve('server', name);
    if (path) visit(path);
  }
  return [...found].sort();
}

/** Copies the run-time packages into `<dir>/node_modules`, keeping their nesting. */
export function copyRuntimePackages(dir) {
  const paths = runtimePackagePaths();
  for (const path of paths) {
    if (!existsSync(join(root, path))) throw new Error(`${path} is in package-lock.json but not installed`);
    // Nested node_modules of a package are copied with their own entry, only when they are run-time deps.
    cpSync(join(root, path), join(dir, path), {
      recursive: true,
      filter: (src) => !/\/node_modules(\/|$)/.test(src.slice(join(root, path).length)),
    });
  }
  return paths;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/runtime-deps.mjs <dir>');
    process.exit(2);
  }
  console.log(`${copyRuntimePackages(dir).length} packages copied to ${dir}/node_modules`);
}
