import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { startFormatsMock } from './support/mock-formats.ts';
import { flushLedger } from './support/relay-seed.ts';
import { threeChannelsOn } from './support/three-channels.ts';

/**
 * Web searches an upstream runs with its hosted search tool are billed per search on top of the tokens, at
 * `global.web_search_price_per_1k` US$ a thousand times the group ratio, and the log row says how many. The
 * counts come from the upstream's own answer (recorded: Anthropic's usage.server_tool_use.web_search_requests,
 * the Responses API's web_search_call items), in the channel's format whatever the client's.
 */
const QUOTA_PER_SEARCH_AT_10 = (10 / 1000) * 500_000; // US$10 a thousand, QuotaPerUnit 500,000, group ratio 1

describe('relay: web searches are billed per search', () => {
  const gw = threeChannelsOn(startFormatsMock, {
    anthropic: 'search-claude',
    responses: 'search-gpt',
    gemini: 'search-gemini',
  });

  const rows = async () => {
    await flushLedger(gw.server.ctx);
    return gw.server.ctx.logDb.db
      .selectFrom('logs')
      .select(['quota', 'other', 'prompt_tokens', 'completion_tokens'])
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .execute();
  };
  /** The log row of the request `send` makes (a stream's row lands after its end reaches the client). */
  async function rowOf(send: () => Promise<unknown>) {
    const before = (await rows()).length;
    await send();
    return vi.waitFor(
      async () => {
        const all = await rows();
        if (all.length === before) throw new Error('no usage row yet');
        return { ...all[0], other: JSON.parse(all[0].other ?? '{}') };
      },
      { timeout: 15_000, interval: 20 },
    );
  }
  /** The same request at a search price of 0 and of US$10: what the searches added, and the row at 10. */
  async function searchCharge(send: () => Promise<unknown>) {
    await gw.server.ctx.options.set('global.web_search_price_per_1k', '0');
    const free = await rowOf(send);
    await gw.server.ctx.options.set('global.web_search_price_per_1k', '10');
    const paid = await rowOf(send);
    expect(free.other.web_search_price).toBe(0);
    expect([paid.prompt_tokens, paid.completion_tokens]).toEqual([
      free.prompt_tokens,
      free.completion_tokens,
    ]);
    return { added: paid.quota - free.quota, row: paid };
  }

  const anthropic = () => new Anthropic({ apiKey: gw.apiKey, baseURL: gw.server.url, maxRetries: 0 });
  const openai = () => new OpenAI({ apiKey: gw.apiKey, baseURL: `${gw.server.url}/v1`, maxRetries: 0 });
  const searchTool = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 } as const;
  const question = 'What happened in tech today?';

  it('Claude Code on an Anthropic channel: the searches of the answer, JSON and streamed', async () => {
    const json = await searchCharge(() =>
      anthropic().messages.create({
        model: 'search-claude',
        max_tokens: 1024,
        tools: [searchTool],
        messages: [{ role: 'user', content: question }],
      }),
    );
    expect(json.row.other).toMatchObject({
      web_search: true,
      web_search_call_count: 2,
      web_search_price: 10,
    });
    expect(json.added).toBe(2 * QUOTA_PER_SEARCH_AT_10);

    const streamed = await searchCharge(async () => {
      const stream = anthropic().messages.stream({
        model: 'search-claude',
        max_tokens: 1024,
        tools: [searchTool],
        messages: [{ role: 'user', content: question }],
      });
      await stream.finalMessage();
    });
    expect(streamed.row.other.web_search_call_count).toBe(1);
    expect(streamed.added).toBe(QUOTA_PER_SEARCH_AT_10);
  });

  it('Codex on a Responses channel: one charge per web_search_call item, JSON and streamed', async () => {
    const json = await searchCharge(() =>
      openai().responses.create({ model: 'search-gpt', input: question, tools: [{ type: 'web_search' }] }),
    );
    expect(json.row.other.web_search_call_count).toBe(3);
    expect(json.added).toBe(3 * QUOTA_PER_SEARCH_AT_10);

    const streamed = await searchCharge(async () => {
      const stream = await openai().responses.create({
        model: 'search-gpt',
        input: question,
        tools: [{ type: 'web_search' }],
        stream: true,
      });
      for await (const _ of stream);
    });
    expect(streamed.row.other.web_search_call_count).toBe(6);
    expect(streamed.added).toBe(6 * QUOTA_PER_SEARCH_AT_10);
  });

  it('a Responses client whose web search runs on an Anthropic channel is billed for the searches Claude ran', async () => {
    const { added, row } = await searchCharge(() =>
      openai().responses.create({ model: 'search-claude', input: question, tools: [{ type: 'web_search' }] }),
    );
    const sent = gw.mock.requests.at(-1)?.body;
    expect(sent.tools).toEqual([
      expect.objectContaining({ type: 'web_search_20250305', name: 'web_search' }),
    ]);
    expect(row.other.web_search_call_count).toBe(2);
    expect(added).toBe(2 * QUOTA_PER_SEARCH_AT_10);
  });

  it('an answer without searches costs its tokens only', async () => {
    await gw.server.ctx.options.set('global.web_search_price_per_1k', '10');
    const row = await rowOf(() =>
      anthropic().messages.create({
        model: 'search-claude',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Say hello' }],
      }),
    );
    expect(row.other.web_search).toBeUndefined();
  });
});
