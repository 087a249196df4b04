#!/usr/bin/env node
// How the server runs in production: one ES module (server/dist/main.js) bundled by esbuild and run with plain
// node and the flags below: no TypeScript loader, no compile work at start. `npm start` rebundles each time
// (about a second), so it is never stale; `node scripts/server-runtime.mjs` bundles only.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Node's flags for the server process. Semi-spaces of 8 MB: the relay allocates about 40 KB per request, all
 * of it short-lived, and each young collection copies what the requests in flight still hold, so a smaller
 * young generation collects more often for the same work (at 2 MB, 45 us of every request's CPU went to
 * scavenges; at 8 MB, 10 us) for about 12 MB more at the peak. The old generation may grow to one and a half
 * times its live size (V8 allows up to four). The two wasm flags keep WebAssembly on its baseline compiler
 * (Liftoff): the only wasm the server runs is undici's HTTP parser (llhttp), and V8's optimising compiler,
 * tiering up its one big function once the first few hundred upstream answers have gone through it, held
 * 30-40 MB of compiler memory for a quarter of a second: the process's peak; CPU per request did not change
 * measurably without it (README, Relay performance). No allocation-site pretenuring: V8 watches which places in
 * the code allocate objects that outlive a young collection and, from then on, allocates their objects straight
 * in the old generation. Under the relay's traffic it could make that call for per-request objects, which then
 * died in the old generation and, until the next full collection, kept the young objects they pointed at alive
 * through every young collection; whether it happened changed from run to run. In a run where it did, a closed
 * loop of the mix promoted 5.7 KB a request instead of 0.7 and ran five times the full collections, for 40% more
 * CPU a request (README, Relay performance). `npm start` (package.json) and the Dockerfile's CMD repeat these
 * flags; a test checks they agree.
 */
export const SERVER_NODE_FLAGS = [
  '--max-semi-space-size=8',
  '--heap-growing-percent=50',
  '--no-wasm-dynamic-tiering',
  '--no-wasm-tier-up',
  '--no-allocation-site-pretenuring',
];

/**
 * Environment for the server process: two malloc arenas instead of one per thread (fewer idle pages held; about
 * 20 MB less at the peak under load). glibc reads it before any JavaScript runs, so `npm start` sets it in
 * package.json's start script (unless already set) and the Dockerfile in the image's environment.
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2' };

/**
 * Packages left outside the bundle and loaded from node_modules: native addons (a `.node` file found at run
 * time), and packages the server imports with `import()` only when configured (PostgreSQL, MySQL, Redis, SMTP,
 * the tokenizer's tables, metrics, tracing), so their code costs no memory where they are not used. Every other
 * package is bundled: one minified module holds less source and fewer module records in the heap than a
 * hundred files read from node_modules. A production install needs exactly these (test: container-image).
 */
export const EXTERNAL_PACKAGES = [
  'better-sqlite3',
  '@node-rs/bcrypt',
  'pg',
  'mysql2',
  'ioredis',
  'nodemailer',
  'gpt-tokenizer',
  'prom-client',
  // OpenTelemetry, loaded only when an OTLP endpoint is set (server/src/infra/tracing/)
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  // Optional speed-ups `ws` tries to require; not installed, and it works without them.
  'bufferutil',
  'utf-8-validate',
];

/**
 * Bundles `entry` (relative to the repository root) into `outfile`. Each file is written beside its place and
 * renamed over it, so a server starting from the bundle at the same moment never reads half a file. `plugins`
 * are esbuild's (the CPU bench swaps a module for another with one).
 */
export async function buildServer(
  entry = 'server/src/main.ts',
  outfile = 'server/dist/main.js',
  plugins = [],
) {
  const { outputFiles } = await build({
    plugins,
    absWorkingDir: root,
    // The ledger's SQLite writer thread (server/src/ledger/worker/) loads its own module, beside the server's.
    entryPoints: [
      { in: entry, out: basename(outfile, '.js') },
      { in: 'server/src/ledger/worker/entry.ts', out: 'ledger-worker' },
      // Password hashing runs on its own thread too (server/src/modules/auth/hash-worker/).
      { in: 'server/src/modules/auth/hash-worker/entry.ts', out: 'password-worker' },
    ],
    outdir: dirname(outfile),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL_PACKAGES.flatMap((p) => [p, `${p}/*`]),
    // The shared workspace package is TypeScript source: bundle it instead of importing it at run time.
    alias: { '@modelgate/shared': './packages/shared/src/index.ts' },
    // Bundled CommonJS packages call require(); an ES module has none, so give it one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    // Whitespace and syntax only: names stay, so stack traces still say which function failed. No keepNames:
    // it wraps every function the code creates, per call too, in a defineProperty of its name, which cost the
    // relay 20-35% of its CPU per request (README, Relay performance); names esbuild renamed on a clash just
    // keep a numeric suffix (`settle2`), and the source map gives their place.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    // A map for reading stack traces (`node --enable-source-maps`, or offline); without the sources' text, which
    // the repository has, so that it stays small.
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    write: false,
  });
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
