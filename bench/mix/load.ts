import { Pool } from 'undici';
import type { MixRequest } from './traffic.ts';

export interface MixResult {
  requests: number;
  seconds: number;
  latencies: number[];
  errors: number;
}

let cursor = 0;
/** The next request of the mix; both targets walk the same list. */
const next = (mix: MixRequest[]) => mix[cursor++ % mix.length];

async function send(pool: Pool, r: MixRequest): Promise<{ ms: number; ok: boolean }> {
  const t0 = performance.now();
  try {
    const res = await pool.request({ path: r.path, method: 'POST', headers: r.headers, body: r.body });
    for await (const _ of res.body);
    return { ms: performance.now() - t0, ok: res.statusCode === 200 };
  } catch {
    return { ms: performance.now() - t0, ok: false };
  }
}

/** Closed loop: `connections` clients, each sending its next request when the previous answer ended. */
export async function closedLoop(
  origin: string,
  mix: MixRequest[],
  connections: number,
  seconds: number,
): Promise<MixResult> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const r = await send(pool, next(mix));
      latencies.push(r.ms);
      if (!r.ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  const took = (performance.now() - started) / 1000;
  await pool.close();
  return { requests: latencies.length, seconds: took, latencies, errors };
}

/** Connections the open loop keeps to each target: at 2,000 req/s they cover a 30 ms hold before one queues. */
const OPEN_CONNECTIONS = 64;
const openPools = new Map<string, Pool>();

/**
 * Opens the open loop's connections to `origin` (a request on each), or reopens those the server closed: call it
 * before each window, outside what is measured. They are kept alive across windows, as a load generator with a
 * fixed connection count runs. A pool opened per window and grown on demand measured the sender instead of the
 * server: a 40 ms hold of the gateway made it open 100-200 connections at once, whose set-up on the sender's one
 * thread turned the hold into 100-800 ms of latency.
 */
export async function openPool(origin: string, mix: MixRequest[]): Promise<void> {
  let pool = openPools.get(origin);
  if (!pool) {
    pool = new Pool(origin, { connections: OPEN_CONNECTIONS, pipelining: 1, keepAliveTimeout: 600_000 });
    openPools.set(origin, pool);
  }
  const warm = pool;
  await Promise.all(Array.from({ length: OPEN_CONNECTIONS }, () => send(warm, next(mix))));
}

/** Closes the open loop's connections. */
export async function closeOpenPools(): Promise<void> {
  await Promise.all([...openPools.values()].map((p) => p.close()));
  openPools.clear();
}

/**
 * Open loop: requests started at a fixed rate whatever the answers do (latency measured from each request's
 * scheduled time, so a stall of the server shows in the tail instead of slowing the sender, and a request that
 * waits for one of the connections counts that wait).
 */
export async function openLoop(
  origin: string,
  mix: MixRequest[],
  rate: number,
  seconds: number,
): Promise<MixResult> {
  const pool = openPools.get(origin);
  if (!pool) throw new Error(`openPool(${origin}) first`);
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.floor(rate * seconds);
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      send(pool, next(mix)).then((r) => {
        latencies.push(performance.now() - due);
        if (!r.ok) errors++;
      }),
    );
  }
  await Promise.all(inFlight);
  const took = (performance.now() - started) / 1000;
  return { requests: latencies.length, seconds: took, latencies, errors };
}
