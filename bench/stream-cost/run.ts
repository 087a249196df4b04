import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { SERVER_NODE_FLAGS } from '../../scripts/server-runtime.mjs';

/**
 * Instructions per relayed stream, counted by valgrind's callgrind (so the figure does not move with the
 * machine's load, as CPU time does): one same-format OpenAI stream (bench/mock-upstream.ts's 13 events)
 * through the relay's stream code in-process, with no sockets. Each build runs `--warm` streams, then
 * `--streams` measured ones; callgrind counts the measured ones alone (events.ts marks them), so start-up,
 * compilation and warm-up are left out.
 *
 *   node --import tsx bench/stream-cost/run.ts                      the current code
 *   node --import tsx bench/stream-cost/run.ts --legacy <commit>    also the OpenAI-only relay of a commit
 *                                                                   before the one request path (issue 28)
 *   --warm 3000 --streams 2000 --rounds 1
 *
 * Needs valgrind. Node runs single-threaded (`--single-threaded`: no background compiler or GC threads, whose
 * timing would move the count) with the server's flags.
 */
const { values: args } = parseArgs({
  options: {
    legacy: { type: 'string' },
    warm: { type: 'string', default: '3000' },
    streams: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '1' },
  },
});
const root = fileURLToPath(new URL('../..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'stream-cost-'));

async function bundle(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    nodePaths: [join(root, 'node_modules')],
    alias: { '@modelgate/shared': join(root, 'packages/shared/src/index.ts') },
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    external: ['better-sqlite3', '@node-rs/bcrypt', 'pg', 'mysql2', 'ioredis', 'gpt-tokenizer'],
  });
  return outfile;
}

/** A checkout of `commit` beside the work folder, with this harness's files copied in. */
function checkout(commit: string): string {
  const dir = join(work, 'legacy');
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  mkdirSync(join(dir, 'bench/stream-cost'), { recursive: true });
  for (const f of ['events.ts', 'legacy.ts']) copyFileSync(join(here, f), join(dir, 'bench/stream-cost', f));
  return dir;
}

/** Instructions of the measured streams: callgrind's second dump, taken at the first mark (events.ts). */
function instructions(js: string, warm: number, streams: number): number {
  const out = join(work, 'callgrind.out');
  const r = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--dump-before=uv_getrusage',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--single-threaded',
      ...SERVER_NODE_FLAGS,
      js,
      String(warm),
      String(streams),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`valgrind failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const m = /^summary: (\d+)$/m.exec(readFileSync(`${out}.2`, 'utf8'));
  if (!m) throw new Error('no count for the measured streams');
  for (const f of readdirSync(work)) if (f.startsWith('callgrind.out')) rmSync(join(work, f));
  return Number(m[1]);
}

const builds: Array<[string, string]> = [
  ['current', await bundle(join(here, 'current.ts'), join(work, 'current.mjs'))],
];
let legacyDir: string | undefined;
try {
  if (args.legacy) {
    legacyDir = checkout(args.legacy);
    builds.push([
      'legacy',
      await bundle(join(legacyDir, 'bench/stream-cost/legacy.ts'), join(work, 'legacy.mjs')),
    ]);
  }
  const streams = Number(args.streams);
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const [name, js] of builds) {
      const per = instructions(js, Number(args.warm), streams) / streams;
      console.log(`round ${round} ${name}: ${Math.round(per).toLocaleString('en')} instructions per stream`);
    }
  }
} finally {
  if (legacyDir) execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', legacyDir]);
  rmSync(work, { recursive: true, force: true });
}
