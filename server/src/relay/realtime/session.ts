import WebSocket from 'ws';
import type { Hold } from '../../ledger/balance.ts';
import type { Caller } from '../admit/auth.ts';
import type { RelayInput } from '../admit/relay-input.ts';
import { upstreamPrice } from '../billing/channel-cost.ts';
import { audioQuota, type Price } from '../billing/quota.ts';
import type { RelayRequest } from '../http/exchange.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import { settle } from '../settle/settle.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import { CLIENT_ERROR_CLOSE, closeReason, errorEvent, relayableCode, SERVER_ERROR_CLOSE } from './events.ts';
import { countOutput, type RunningResponse, unfinishedUsage } from './unfinished.ts';
import { type RealtimeUsage, realtimeUsage } from './usage.ts';

/** What an opened session needs: who pays, for which model, through which channel, and the first hold. */
export interface SessionSetup {
  state: RelayState;
  req: RelayRequest;
  caller: Caller;
  /** The model the client asked for (prices and logs use it). */
  model: string;
  /** The model the channel serves it as (after its model mapping). */
  upstreamModel: string;
  ch: ChannelEntry;
  /** Channels tried before this one opened, this one last. */
  chain: number[];
  price: Price & { unset: boolean };
  hold: Hold;
  /** What is held for the next response while the session is open. */
  holdAmount: number;
}

/** A side that has this much unsent makes the other side wait (the session is relayed, never buffered whole). */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;
/** How long a closing session waits for the responses in flight to end, so they are billed. */
const DRAIN_MS = 5000;

const now = () => performance.now();

/**
 * One realtime session: events relayed both ways as they arrive, each `response.done` billed from its usage
 * (one usage log row per response, settled against the hold taken for it), the next response's hold taken at
 * once, and the session ended with an `error` event when that hold is refused. Either side closing ends it:
 * the responses still running upstream are cancelled and billed before the upstream socket closes.
 */
export class RealtimeSession {
  private hold: Hold | null;
  private billing: Promise<void> = Promise.resolve();
  /** Responses in flight: id -> when response.created came, when their first event after it did, their output. */
  private readonly running = new Map<string, RunningResponse>();
  /** The usage of the last response that ended (its input is the floor of the next one's). */
  private lastUsage?: RealtimeUsage;
  private ending: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  /** Error events the gateway itself sent (their ids are the request id and this count). */
  private errors = 0;
  private readonly input: RelayInput;
  private ended!: () => void;
  readonly done = new Promise<void>((resolve) => {
    this.ended = resolve;
  });

  constructor(
    private readonly client: WebSocket,
    private readonly upstream: WebSocket,
    private readonly s: SessionSetup,
  ) {
    this.hold = s.hold;
    this.input = {
      mode: 'chat',
      format: 'openai',
      info: {
        model: s.model,
        stream: true,
        wantsUsage: false,
        maxTokens: 0,
        promptEstimate: 0,
        promptBound: 0,
        inputText: '',
      },
    };
    upstream.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) this.watch(data);
      this.relay(upstream, client, data, isBinary);
    });
    client.on('message', (data: Buffer, isBinary) => {
      if (this.ending) return;
      if (!isBinary && data.includes('session.update') && this.answeredModelChange(data)) return;
      this.relay(client, upstream, data, isBinary);
    });
    upstream.on('close', (code, reason) => {
      // Responses still running will never end now.
      this.drained?.();
      void this.finish(relayableCode(code), code === 1006 ? 'upstream connection lost' : reason.toString());
    });
    client.on('close', () => void this.finish(1000, ''));
    upstream.on('error', (err) => s.req.log.warn({ err: err.message }, 'realtime upstream socket error'));
    client.on('error', (err) => s.req.log.debug({ err: err.message }, 'realtime client socket error'));
    upstream.resume();
  }

  /** Sends on, pausing the sender while the receiver has a backlog. */
  private relay(from: WebSocket, to: WebSocket, data: Buffer, isBinary: boolean): void {
    if (to.readyState !== WebSocket.OPEN) return;
    to.send(data, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < LOW_WATER) from.resume();
    });
    if (to.bufferedAmount > HIGH_WATER) from.pause();
  }

  /** Follows the responses: when they start, their first output, and their usage when they end. */
  private watch(data: Buffer): void {
    for (const r of this.running.values()) if (!r.firstAt) r.firstAt = now();
    countOutput(this.running, data);
    // Only the two events that matter are parsed; audio deltas (base64, no dots) never match.
    if (!data.includes('response.created') && !data.includes('response.done')) return;
    let event: { type?: unknown; response?: { id?: unknown; usage?: unknown } };
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return;
    }
    const id = typeof event?.response?.id === 'string' ? event.response.id : '';
    if (event.type === 'response.created') {
      this.running.set(id, { startedAt: now(), firstAt: 0, audioChars: 0, textBytes: 0 });
    } else if (event.type === 'response.done') {
      const run = this.running.get(id);
      this.running.delete(id);
      const usage = realtimeUsage(event.response?.usage);
      if (usage) {
        this.lastUsage = usage;
        this.charge(usage, id, run?.startedAt ?? now(), run?.firstAt ?? 0);
      } else if (run) this.charge(unfinishedUsage(run, this.lastUsage), id, run.startedAt, run.firstAt, true);
      if (this.running.size === 0) this.drained?.();
    }
  }

  private charge(
    usage: RealtimeUsage,
    responseId: string,
    startedAt: number,
    firstAt: number,
    estimated = false,
  ): void {
    this.billing = this.billing
      .then(() => this.settleResponse(usage, responseId, startedAt, firstAt, estimated))
      .catch((err) => {
        this.s.req.log.error({ err }, 'realtime billing failed');
        void this.finish(SERVER_ERROR_CLOSE, 'internal error');
      });
  }

  /** Charges one response against its hold, then holds for the next one (or ends the session). */
  private async settleResponse(
    usage: RealtimeUsage,
    responseId: string,
    startedAt: number,
    firstAt: number,
    estimated: boolean,
  ): Promise<void> {
    const { state, caller, price, ch } = this.s;
    const audio = state.prices.audio(this.s.model);
    const qpu = state.ctx.options.float('QuotaPerUnit');
    const quota = audioQuota(usage, price, audio, qpu);
    const cost = audioQuota(usage, upstreamPrice(state.prices, ch, this.s.model, price), audio, qpu);
    // A response that ends after the session lost its hold is still billed: against nothing held.
    const hold = this.hold ?? {
      amount: 0,
      user: caller.user.balance,
      token: caller.token?.balance,
      tokenChecked: !(caller.token?.unlimited ?? true),
      done: false,
    };
    this.hold = null;
    const f = (n: number) => n.toFixed(2);
    const call = {
      state,
      req: this.s.req,
      caller,
      input: this.input,
      hold,
      price,
      chain: this.s.chain,
      startedAt,
    };
    await settle(
      call,
      {
        usage,
        firstAt: firstAt ? Math.round(firstAt - startedAt) : 0,
        quota,
        cost,
        note: `实时会话，音频倍率 ${f(audio.audioRatio)}，音频补全倍率 ${f(audio.audioCompletionRatio)}`,
        other: {
          ws: true,
          audio: true,
          realtime_response_id: responseId,
          text_input: usage.textInput,
          text_output: usage.textOutput,
          audio_input: usage.audioInput,
          audio_output: usage.audioOutput,
          audio_ratio: audio.audioRatio,
          audio_completion_ratio: audio.audioCompletionRatio,
          ...(estimated ? { usage_estimated: true } : {}),
        },
      },
      ch,
    );
    if (this.ending) return;
    let next: Awaited<ReturnType<typeof state.ledger.hold>>;
    try {
      next = await state.ledger.hold(
        caller.user.balance,
        caller.token?.balance,
        { need: this.s.holdAmount, amount: this.s.holdAmount },
        caller.token?.unlimited ?? true,
      );
    } catch (err) {
      // A spent periodic budget (429) ends the session like a spent balance, naming when it renews.
      if (!(err instanceof RelayError) || !err.local) throw err;
      this.sendError(
        err.type,
        err.code ?? 'refused',
        `${err.message}; the realtime session ends (request id: ${this.s.req.id})`,
      );
      return void this.finish(CLIENT_ERROR_CLOSE, `${err.type}.${err.code}`);
    }
    if (typeof next === 'string') return this.exhausted(next);
    if (this.ending) state.ledger.release(next);
    else this.hold = next;
  }

  private exhausted(who: 'user' | 'token'): void {
    const whose = who === 'user' ? 'your account balance' : "this API key's remaining quota";
    this.sendError(
      'insufficient_quota',
      'insufficient_quota',
      `insufficient quota: ${whose} is too low to continue; the realtime session ends (request id: ${this.s.req.id})`,
    );
    void this.finish(CLIENT_ERROR_CLOSE, 'insufficient_quota.insufficient_quota');
  }

  /**
   * The model of a session is chosen when it opens (`?model=`): a `session.update` naming another model is
   * answered with an error event and not sent on; naming the client's model under its mapped name is rewritten.
   */
  private answeredModelChange(data: Buffer): boolean {
    let event: { type?: unknown; event_id?: unknown; session?: { model?: unknown } };
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return false;
    }
    const asked = event?.type === 'session.update' ? event.session?.model : undefined;
    if (typeof asked !== 'string' || asked === this.s.upstreamModel) return false;
    if (asked === this.s.model && event.session) {
      event.session.model = this.s.upstreamModel;
      this.relay(this.client, this.upstream, Buffer.from(JSON.stringify(event)), false);
      return true;
    }
    this.sendError(
      'invalid_request_error',
      'invalid_value',
      `the session's model is ${this.s.model}, chosen when it opened; session.update cannot change it to ${asked}`,
      'session.model',
      typeof event.event_id === 'string' ? event.event_id : null,
    );
    return true;
  }

  private sendError(
    type: string,
    code: string,
    message: string,
    param: string | null = null,
    clientEventId: string | null = null,
  ): void {
    if (this.client.readyState !== WebSocket.OPEN) return;
    const id = `${this.s.req.id}_${++this.errors}`;
    this.client.send(JSON.stringify(errorEvent(id, type, code, message, param, clientEventId)));
  }

  /**
   * Ends the session once: closes the client with `code`, lets the upstream's responses in flight end
   * (cancelled, at most DRAIN_MS) so their usage is billed, closes the upstream, then gives back the hold.
   */
  finish(code: number, reason: string): Promise<void> {
    if (this.ending) return this.ending;
    this.ending = (async () => {
      if (this.client.readyState === WebSocket.OPEN) this.client.close(code, closeReason(reason));
      if (this.upstream.isPaused) this.upstream.resume();
      if (this.upstream.readyState === WebSocket.OPEN && this.running.size > 0) {
        const waited = new Promise<void>((resolve) => {
          this.drained = resolve;
          setTimeout(resolve, DRAIN_MS).unref();
        });
        for (const id of this.running.keys())
          this.upstream.send(JSON.stringify({ type: 'response.cancel', ...(id ? { response_id: id } : {}) }));
        await waited;
      }
      if (this.upstream.readyState === WebSocket.OPEN) this.upstream.close(1000);
      await this.billing;
      // Responses the upstream never finished (it ignored the cancel, or dropped): billed from what was relayed.
      if (this.running.size > 0)
        this.s.req.log.warn(
          { responses: [...this.running.keys()] },
          'realtime session ended with responses the upstream never finished: billed from their relayed output',
        );
      for (const [id, run] of this.running)
        this.charge(unfinishedUsage(run, this.lastUsage), id, run.startedAt, run.firstAt, true);
      this.running.clear();
      await this.billing;
      if (this.hold) {
        this.s.state.ledger.release(this.hold);
        this.hold = null;
      }
      this.ended();
    })();
    return this.ending;
  }
}
