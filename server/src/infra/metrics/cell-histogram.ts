import type { Metric, Registry } from 'prom-client';

/** One label set of a histogram: counts per bucket, the sum and the count, updated as plain numbers. */
export class HistogramCell {
  /** Observations per bucket (not cumulative); the last slot is above the highest bound (+Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

type Sample = { labels: Record<string, string>; value: number; metricName: string };

/**
 * A histogram whose label sets are cells the caller keeps and observes into with a few additions. prom-client's
 * own Histogram builds its label hash and some objects on every observation (about 0.2-0.6 µs here); this is
 * the relay's hot path, so only the exposition is prom-client's: the registry renders what `get` returns, in
 * the shape prom-client's Histogram returns it.
 */
export class CellHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly cells: HistogramCell[] = [];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    // The registry only reads name, help, type, aggregator and get(); its typings list prom-client's classes.
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new cell for one label set; the caller keeps it and asks for each label set once. */
  cell(labels: Record<string, string>): HistogramCell {
    const cell = new HistogramCell(labels, this.bounds);
    this.cells.push(cell);
    return cell;
  }

  get() {
    const values: Sample[] = [];
    for (const c of this.cells) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += c.counts[i];
        const le = i < this.bounds.length ? String(this.bounds[i]) : '+Inf';
        values.push({ labels: { ...c.labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: c.labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: c.labels, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
