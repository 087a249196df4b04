import type { HubError, HubEvent } from '../formats/hub.ts';
import { RelayError } from '../relay-error.ts';
import { StreamMasker } from './masker.ts';
import type { Matcher } from './matchers.ts';

export const BLOCKED_CODE = 'guardrail_blocked';

/**
 * The answer side of a guardrail policy for one attempt: every text delta of the answer passes through
 * `pass` (both stream paths call it: the hub events of format-stream and the chunks of the OpenAI relay), which
 * masks in place and holds at most the policy's window; `blocked` is set once a blocking rule fired.
 */
export class AnswerGuard {
  private readonly maskers = new Map<number, StreamMasker>();
  blockedRule?: string;

  constructor(
    private readonly matchers: readonly Matcher[],
    private readonly window: number,
    /** Writes the error row of a refused non-streamed answer (a stopped stream is told in its own row). */
    readonly logRefusal: (rule: string) => void = () => {},
  ) {}

  private masker(choice: number): StreamMasker {
    let m = this.maskers.get(choice);
    if (!m) {
      m = new StreamMasker(this.matchers, this.window);
      this.maskers.set(choice, m);
    }
    return m;
  }

  /** The part of `text` (and of what was held before it) that may go to the client now, masked. */
  pass(text: string, choice = 0): string {
    return this.note(this.masker(choice), this.masker(choice).push(text));
  }

  /** Everything still held for a choice, masked. */
  flush(choice = 0): string {
    const m = this.maskers.get(choice);
    return m ? this.note(m, m.flush()) : '';
  }

  private note(m: StreamMasker, out: string): string {
    if (m.blocked && !this.blockedRule) this.blockedRule = m.blocked.rule;
    return this.blockedRule ? '' : out;
  }

  get blocked(): boolean {
    return this.blockedRule !== undefined;
  }

  /** The refusal for a blocked answer: never retried on another channel, never echoing the text. */
  error(): RelayError {
    return new RelayError(
      400,
      `the answer was stopped by guardrail rule ${this.blockedRule}`,
      'invalid_request_error',
      BLOCKED_CODE,
    );
  }

  hubError(): HubError {
    const e = this.error();
    return { status: e.status, kind: 'invalid_request', message: e.message, code: e.code };
  }

  /** Hub events with their text masked; held text goes out before any other event; an error event once blocked. */
  events(events: HubEvent[]): HubEvent[] {
    if (this.blocked) return [];
    const out: HubEvent[] = [];
    for (const e of events) {
      if (e.type === 'text') {
        const text = this.pass(e.text);
        if (text) out.push({ type: 'text', text });
      } else {
        const held = this.flush();
        if (held) out.push({ type: 'text', text: held });
        if (!this.blocked) out.push(e);
      }
      if (this.blocked) {
        out.push({ type: 'error', error: this.hubError() });
        break;
      }
    }
    return out;
  }

  /** The held text at the end of a hub stream. */
  end(): HubEvent[] {
    if (this.blocked) return [];
    const held = this.flush();
    if (this.blocked) return [{ type: 'error', error: this.hubError() }];
    return held ? [{ type: 'text', text: held }] : [];
  }

  /** An OpenAI chat chunk with its content deltas masked (held text goes out with a choice's finish). */
  chatChunk(chunk: any): any[] {
    if (this.blocked) return [];
    const choices = Array.isArray(chunk?.choices) ? chunk.choices : [];
    for (const c of choices) {
      const d = c?.delta;
      if (!d || typeof d !== 'object') continue;
      const index = typeof c.index === 'number' ? c.index : 0;
      if (typeof d.content === 'string') d.content = this.pass(d.content, index);
      if (c.finish_reason) {
        const held = this.flush(index);
        if (held) d.content = (typeof d.content === 'string' ? d.content : '') + held;
      }
    }
    return this.blocked ? [] : [chunk];
  }
}
