/** One scrape of a Prometheus text exposition, read the way Prometheus reads it. */
export interface Scrape {
  text: string;
  /** Every sample of a metric: its labels and value. */
  samples(name: string): Array<{ labels: Record<string, string>; value: number }>;
  /** The sum of the samples of a metric whose labels include `labels` (0 when none does). */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Scrape {
  const byName = new Map<string, Array<{ labels: Record<string, string>; value: number }>>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    const list = byName.get(m[1]) ?? [];
    list.push({ labels, value: Number(m[3]) });
    byName.set(m[1], list);
  }
  const samples = (name: string) => byName.get(name) ?? [];
  return {
    text,
    samples,
    value: (name, want = {}) =>
      samples(name)
        .filter((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0),
  };
}

/** How far each metric moved from one scrape to a later one: `delta(name, labels)`. */
export function deltas(before: Scrape, after: Scrape) {
  return (name: string, labels?: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);
}

/** GET /metrics with the bearer token; throws unless the answer is 200. */
export async function scrape(baseUrl: string, token: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${text}`);
  return parseExposition(text);
}
