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

/**
 * Open loop: requests started at a fixed rate whatever the answers do (latency measured from each request's
 * scheduled time, so a stall of the server shows in the tail instead of slowing the sender).
 */
export async function openLoop(
  origin: string,
  mix: MixRequest[],
  rate: number,
  seconds: number,
): Promise<MixResult> {
  const pool = new Pool(origin, { connections: 256, pipelining: 1, keepAliveTimeout: 60_000 });
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
  await pool.close();
  return { requests: latencies.length, seconds: took, latencies, errors };
}
