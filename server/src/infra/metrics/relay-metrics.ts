import { Gauge, type Registry } from 'prom-client';
import type { Usage } from '../../relay/billing/quota.ts';
import type { WireFormat } from '../../relay/formats/hub.ts';
import { type Cell, CellCounter } from './cell-counter.ts';
import { CellHistogram, type HistogramCell } from './cell-histogram.ts';

const FORMAT_INDEX: Record<WireFormat, number> = { openai: 0, responses: 1, anthropic: 2, gemini: 3 };
const FORMATS = Object.keys(FORMAT_INDEX) as WireFormat[];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/** A model that no channel lists and no price names (the client's typo): one label, whatever the name. */
const OTHER_MODEL = 'other';
/** A request refused before its model was read (no key, bad body). */
const NO_MODEL = 'none';
const NO_CHANNEL = 'none';

const UPSTREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160];
const FIRST_BYTE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32];
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

interface ModelCells {
  name: string;
  quota: Cell;
  promptTokens: Cell;
  completionTokens: Cell;
  firstByte?: HistogramCell;
  /** channel id -> cells by format and status class (FORMAT_INDEX * 5 + class), made on first use. */
  requests: Map<number, Array<Cell | undefined>>;
}

interface ChannelCells {
  label: string;
  /** Upstream time of non-streamed [0] and streamed [1] calls. */
  upstream: Array<HistogramCell | undefined>;
  retries: Cell;
  failovers: Cell;
}

const statusClass = (status: number) => Math.min(5, Math.max(1, Math.floor(status / 100))) - 1;
const channelLabel = (id: number) => (id > 0 ? String(id) : NO_CHANNEL);

/**
 * The relay's traffic metrics. Label values are bounded: formats, status classes, the models the admin
 * configured (anything else is `other`) and channel ids; never a user or a token. Every label set's counter
 * and histogram cells are made once and kept, so a request adds to numbers and allocates no labels.
 */
export class RelayMetrics {
  inFlight = 0;
  /** Whether a model name is the admin's (a channel lists it or a price names it); the relay sets it. */
  knownModel: (name: string) => boolean = () => false;
  private readonly models = new Map<string, ModelCells>();
  private readonly channels = new Map<number, ChannelCells>();
  private readonly requests: CellCounter;
  private readonly quota: CellCounter;
  private readonly tokens: CellCounter;
  private readonly retries: CellCounter;
  private readonly failovers: CellCounter;
  private readonly upstream: CellHistogram;
  private readonly firstByte: CellHistogram;
  private readonly overhead: HistogramCell[];

  constructor(registry: Registry) {
    const metrics = this;
    this.requests = new CellCounter(
      registry,
      'modelgate_relay_requests_total',
      'Relay requests by client format, model, the channel that answered (or last failed) and status class.',
      ['format', 'model', 'channel', 'status'],
    );
    new Gauge({
      name: 'modelgate_relay_requests_in_flight',
      help: 'Relay requests being served now.',
      registers: [registry],
      collect() {
        this.set(metrics.inFlight);
      },
    });
    this.quota = new CellCounter(
      registry,
      'modelgate_relay_quota_total',
      'Quota charged for relayed requests, by model.',
      ['model'],
    );
    this.tokens = new CellCounter(
      registry,
      'modelgate_relay_tokens_total',
      'Tokens billed, by model and direction (prompt = in, completion = out).',
      ['model', 'direction'],
    );
    this.retries = new CellCounter(
      registry,
      'modelgate_relay_retries_total',
      'Attempts made again after a failure of this channel (another key, another channel).',
      ['channel'],
    );
    this.failovers = new CellCounter(
      registry,
      'modelgate_relay_failovers_total',
      'Retries after a failure of this channel that went to another channel.',
      ['channel'],
    );
    this.upstream = new CellHistogram(
      registry,
      'modelgate_relay_upstream_seconds',
      'Time one upstream call took, from sending it to the end of its answer (of its stream when streamed).',
      UPSTREAM_BUCKETS,
    );
    this.firstByte = new CellHistogram(
      registry,
      'modelgate_relay_first_byte_seconds',
      "Streamed requests: time from the request's arrival to the first byte of the answer sent to the client.",
      FIRST_BYTE_BUCKETS,
    );
    const overhead = new CellHistogram(
      registry,
      'modelgate_relay_overhead_seconds',
      "Time a relay request spent in the gateway itself: its whole time minus the upstream calls' time.",
      OVERHEAD_BUCKETS,
    );
    this.overhead = FORMATS.map((format) => overhead.cell({ format }));
  }

  /** A request that reached the pipeline, counted until `end`. */
  start(format: WireFormat, model: string, startedAt: number): RelayMeter {
    this.inFlight++;
    return new RelayMeter(this, FORMAT_INDEX[format] ?? 0, this.model(model), startedAt);
  }

  /**
   * A request the gateway answered without the pipeline, so without a channel: refused before it (no key, a
   * bad body; no model read) or answered here (a token count).
   */
  answeredHere(format: WireFormat, status: number, model?: string): void {
    const m = model === undefined ? this.labelled(NO_MODEL) : this.model(model);
    this.request(m, 0, FORMAT_INDEX[format] ?? 0, status).value++;
  }

  /** A channel's retry and failover counters and its upstream-time cells, made on first use. */
  channel(id: number): ChannelCells {
    let c = this.channels.get(id);
    if (!c) {
      const label = channelLabel(id);
      c = {
        label,
        upstream: [],
        retries: this.retries.cell({ channel: label }),
        failovers: this.failovers.cell({ channel: label }),
      };
      this.channels.set(id, c);
    }
    return c;
  }

  upstreamOf(c: ChannelCells, stream: boolean): HistogramCell {
    const i = stream ? 1 : 0;
    c.upstream[i] ??= this.upstream.cell({ channel: c.label, stream: stream ? 'true' : 'false' });
    return c.upstream[i];
  }

  firstByteOf(m: ModelCells): HistogramCell {
    m.firstByte ??= this.firstByte.cell({ model: m.name });
    return m.firstByte;
  }

  overheadOf(format: number): HistogramCell {
    return this.overhead[format];
  }

  request(m: ModelCells, channel: number, format: number, status: number): Cell {
    let row = m.requests.get(channel);
    if (!row) {
      row = [];
      m.requests.set(channel, row);
    }
    const i = format * STATUS_CLASSES.length + statusClass(status);
    let cell = row[i];
    if (!cell) {
      cell = this.requests.cell({
        format: FORMATS[format],
        model: m.name,
        channel: channelLabel(channel),
        status: STATUS_CLASSES[statusClass(status)],
      });
      row[i] = cell;
    }
    return cell;
  }

  private model(name: string): ModelCells {
    const known = this.models.get(name);
    if (known) return known;
    // Only the admin's model names become labels: a client may send any string.
    return this.labelled(this.knownModel(name) ? name : OTHER_MODEL);
  }

  private labelled(name: string): ModelCells {
    let m = this.models.get(name);
    if (!m) {
      m = {
        name,
        quota: this.quota.cell({ model: name }),
        promptTokens: this.tokens.cell({ model: name, direction: 'prompt' }),
        completionTokens: this.tokens.cell({ model: name, direction: 'completion' }),
        requests: new Map(),
      };
      this.models.set(name, m);
    }
    return m;
  }
}

/**
 * One relay request's measurements: made by `RelayMetrics.start` (only when metrics are on), told when each
 * upstream call leaves and ends, and closed by `end` with the status the client got.
 */
export class RelayMeter {
  private sentAt = 0;
  private waited = 0;
  /** The channel of the latest attempt (0 before the first). */
  private channel = 0;

  constructor(
    private readonly metrics: RelayMetrics,
    private readonly format: number,
    private readonly model: ModelCells,
    private readonly startedAt: number,
  ) {}

  /** An attempt's call leaves for the upstream of this channel. */
  sent(channel: number): void {
    this.channel = channel;
    this.sentAt = performance.now();
  }

  /** The attempt's upstream answer is complete, or the call failed; a second call for the same attempt is ignored. */
  received(stream: boolean): void {
    if (!this.sentAt) return;
    const ms = performance.now() - this.sentAt;
    this.sentAt = 0;
    this.waited += ms;
    this.metrics.upstreamOf(this.metrics.channel(this.channel), stream).observe(ms / 1000);
  }

  /** Another attempt follows a failure of channel `from`; it goes to channel `to`. */
  retried(from: number, to: number): void {
    const c = this.metrics.channel(from);
    c.retries.value++;
    if (to !== from) c.failovers.value++;
  }

  /** A successful answer: its quota (null when the hold was already settled), tokens and first byte (ms, 0 = not streamed). */
  answered(quota: number | null, usage: Usage, firstByteMs: number): void {
    const m = this.model;
    if (quota !== null) {
      m.quota.value += quota;
      m.promptTokens.value += usage.promptTokens;
      m.completionTokens.value += usage.completionTokens;
    }
    if (firstByteMs > 0) this.metrics.firstByteOf(m).observe(firstByteMs / 1000);
  }

  /** The request is over: counted with the client's status and the channel that answered or failed last. */
  end(status: number): void {
    const { metrics } = this;
    metrics.inFlight--;
    metrics.request(this.model, this.channel, this.format, status).value++;
    const own = performance.now() - this.startedAt - this.waited;
    metrics.overheadOf(this.format).observe(Math.max(0, own) / 1000);
  }
}
