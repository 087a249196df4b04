import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../../src/context.ts';
import { formatLocal } from '../../src/ledger/budget/rule.ts';
import { relayState } from '../../src/relay/relay-state.ts';
import { fixtureJson } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/** The per-call model of the budget tests: ModelPrice 0.002 x 500000 quota per dollar = 1000 quota a call. */
export const BUDGET_MODEL = 'deepseek-fixed';
export const CALL_QUOTA = 1000;
export const BUDGET_PRICES = { [BUDGET_MODEL]: 0.002 };

/** "YYYY-MM-DD HH:mm" of a time, in the server's zone (the process's: tests run the gateway in-process). */
export function localText(ms: number): string {
  const d = new Date(ms);
  const [year, month, day, hour, minute] = [
    d.getFullYear(),
    d.getMonth(),
    d.getDate(),
    d.getHours(),
    d.getMinutes(),
  ];
  return formatLocal({ year, month, day, hour, minute });
}

/** Moves the relay's budget clock (holds, settles, renewals) of one gateway. */
export function setClock(ctx: AppContext, ms: number): void {
  relayState(ctx).ledger.now = () => ms;
}

/** One chat completion through the relay: status, retry-after and the parsed body. */
export async function ask(baseUrl: string, apiKey: string, model = BUDGET_MODEL) {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = (await res.json()) as any;
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body };
}

/**
 * An OpenAI-compatible upstream that answers every chat request with a recorded completion, but only once the
 * test lets it: `close()` the gate and requests wait (`waiting` counts them) until `release(n)` lets the first
 * n go, or `open()` lets everything through.
 */
export async function gatedUpstream() {
  const waiting: Array<() => void> = [];
  let gate = true;
  const answer = JSON.stringify(fixtureJson('deepseek/chat/text.json'));
  const server = await serveMock(async (req: IncomingMessage, res: ServerResponse) => {
    for await (const _ of req);
    if (!gate) await new Promise<void>((resolve) => waiting.push(resolve));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  });
  return {
    url: server.url,
    close: server.close,
    get waiting() {
      return waiting.length;
    },
    shut() {
      gate = false;
    },
    release(n: number) {
      for (const go of waiting.splice(0, n)) go();
    },
    open() {
      gate = true;
      for (const go of waiting.splice(0)) go();
    },
  };
}

/** Polls until `check` holds (the relay reached the upstream, a reload landed). */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
