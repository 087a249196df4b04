import { Pool } from 'undici';

/** One kind of request the benchmarks send. */
export interface Scenario {
  name: string;
  path: string;
  model: string;
  anthropic: boolean;
}

/** OpenAI in and out; Anthropic in and out; Anthropic in, OpenAI out (the gateway converts both ways). */
export const SCENARIOS: Scenario[] = [
  { name: 'openai', path: '/v1/chat/completions', model: 'gpt-4o-mini', anthropic: false },
  { name: 'anthropic', path: '/v1/messages', model: 'claude-bench', anthropic: true },
  { name: 'anthropic>openai', path: '/v1/messages', model: 'gpt-4o-mini', anthropic: true },
];

export interface LoadResult {
  requests: number;
  seconds: number;
  latencies: number[];
  ttfb: number[];
  errors: number;
}

/**
 * Sends `max` requests of one scenario over `connections` keep-alive connections, stopping early after
 * `maxSeconds`. Latencies and (for streams) times to first byte are in milliseconds.
 */
export async function load(
  origin: string,
  key: string,
  sc: Scenario,
  stream: boolean,
  connections: number,
  max: number,
  maxSeconds: number,
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const body = JSON.stringify({
    model: sc.model,
    stream,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello there, how are you?' }],
  });
  const headers: Record<string, string> = sc.anthropic
    ? { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
    : { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const latencies: number[] = [];
  const ttfb: number[] = [];
  let sent = 0;
  let errors = 0;
  const deadline = performance.now() + maxSeconds * 1000;
  const started = performance.now();
  const worker = async () => {
    while (sent < max && performance.now() < deadline) {
      sent++;
      const t0 = performance.now();
      try {
        const res = await pool.request({ path: sc.path, method: 'POST', headers, body });
        let first = 0;
        for await (const _ of res.body) if (!first) first = performance.now();
        if (res.statusCode !== 200) errors++;
        const t1 = performance.now();
        latencies.push(t1 - t0);
        if (stream) ttfb.push((first || t1) - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { requests: latencies.length, seconds, latencies, ttfb, errors };
}
