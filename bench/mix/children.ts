import { type ChildProcess, fork } from 'node:child_process';
import { buildServer, SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-runtime.mjs';
import { pin, pinLoadGenerator } from '../pin.ts';

/**
 * The processes of the mix benchmark and the soak: the mock upstream, the bare proxy and the mix gateway, each
 * bundled by esbuild and forked (the gateway with the server's node flags, as `npm start` runs it), pinned to
 * the second core when taskset is there; and the IPC commands the harness sends them.
 */
export type ChildName = 'mock-upstream' | 'baseline-proxy' | 'mix/gateway';

export interface Stats {
  cpuUs: number;
  rssMb: number;
  maxRssMb: number;
  /** The longest event-loop stall since the previous ask (the gateway only). */
  stallMs?: number;
  /** The main thread's JavaScript heap (V8's heap total) and memory held outside it (buffers), in MB (the gateway only). */
  heapMb?: number;
  externalMb?: number;
  /** The closed usage log chunks' numbers (SQLite; the gateway only): a close's index builds are seconds of CPU. */
  chunks?: number[];
}

export async function buildChildren(
  names: ChildName[],
): Promise<(name: ChildName, env?: Record<string, string>) => Promise<{ child: ChildProcess; msg: any }>> {
  const built = new Map<string, string>();
  for (const name of names)
    built.set(name, await buildServer(`bench/${name}.ts`, `bench/dist/${name.replace('/', '-')}.js`));
  const pinned = pinLoadGenerator();
  if (!pinned) console.log('note: taskset unavailable or one core only; processes are not pinned');
  return (name, env = {}) => {
    const gateway = name === 'mix/gateway';
    const child = fork(built.get(name) as string, [], {
      // MIX_PROFILE=<dir>: a CPU profile of the gateway over the whole run, written when it stops.
      // MIX_NODE_FLAGS: more flags for the gateway's node (a diagnostic such as --trace-gc).
      execArgv: gateway
        ? [
            ...SERVER_NODE_FLAGS,
            ...(process.env.MIX_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.MIX_PROFILE}`] : []),
            ...(process.env.MIX_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
          ]
        : [],
      env: { ...(gateway ? SERVER_ENV : {}), ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('message', (msg) => {
        if (pinned && child.pid) pin(child.pid, 1);
        resolve({ child, msg });
      });
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    });
  };
}

let asked = 0;
/** A command to a child; answers carry the command's id (the gateway's background work answers late). */
export const ask = <T>(child: ChildProcess, cmd: string): Promise<T> =>
  new Promise((resolve) => {
    const id = ++asked;
    const on = (m: { id?: number }) => {
      if (m.id !== undefined && m.id !== id) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send({ cmd, id });
  });

export interface Books {
  logged: number;
  used: number;
  tokenUsed: number;
  rows: number;
}
export const reconciled = (b: Books) => b.logged === b.used && b.used === b.tokenUsed;

/** Stops the gateway cleanly (its last flush lands) and the other children. */
export async function stopAll(gateway: ChildProcess, others: ChildProcess[]): Promise<void> {
  gateway.send({ cmd: 'stop' });
  await new Promise((r) => gateway.once('exit', r));
  for (const c of others) c.kill();
}
