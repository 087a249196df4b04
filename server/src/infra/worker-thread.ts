import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread from the server's own code. `caller` is the calling module's `import.meta.url`. In
 * production the server runs as a bundle, and the build emits each worker's entry as `<bundled>.js` beside
 * `main.js` (scripts/server-runtime.mjs); in development and tests the TypeScript `source` (relative to the
 * caller) is loaded through tsx's ES module API (its CommonJS one cannot load TypeScript modules into a worker).
 */
export function startWorker(caller: string, bundled: string, source: string, workerData?: unknown): Worker {
  if (!caller.endsWith('.ts')) return new Worker(new URL(`./${bundled}.js`, caller), { workerData });
  const require = createRequire(caller);
  const tsxJson = require.resolve('tsx/package.json');
  const tsx = join(dirname(tsxJson), require(tsxJson).exports['./esm/api'].import.default);
  const entry = new URL(source, caller).href;
  const boot = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(caller)}))`;
  return new Worker(boot, { eval: true, workerData });
}
