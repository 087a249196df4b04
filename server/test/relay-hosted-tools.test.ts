import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startFormatsMock } from './support/mock-formats.ts';
import { threeChannelsOn } from './support/three-channels.ts';

/**
 * Hosted tools declared for a channel of another format: web search becomes the channel's own web search;
 * another hosted tool is refused with a 400 in the caller's protocol naming it, or, when the operator allows
 * it, dropped and named in the x-modelgate-dropped-tools header. Never silently.
 */
const FUNCTION = {
  type: 'function',
  name: 'exec_command',
  description: 'Run a command',
  parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
};

describe('relay: hosted tools across formats', () => {
  const gw = threeChannelsOn(startFormatsMock, {
    anthropic: 'hosted-claude',
    responses: 'hosted-gpt',
    gemini: 'hosted-gemini',
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gw.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.apiKey}`, ...headers },
      body: JSON.stringify(body),
    });
  const codexBody = (tools: unknown[], stream = false) => ({
    model: 'hosted-claude',
    input: [{ role: 'user', content: 'Find the release notes' }],
    tools: [FUNCTION, ...tools],
    store: false,
    stream,
  });

  it("refuses Codex's tool_search on an Anthropic channel with a 400 naming it, and calls nobody", async () => {
    const before = gw.mock.requests.length;
    const client = new OpenAI({ apiKey: gw.apiKey, baseURL: `${gw.server.url}/v1`, maxRetries: 0 });
    const err = await client.responses
      .create(codexBody([{ type: 'web_search' }, { type: 'tool_search' }]) as any)
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'unsupported_tool',
      param: 'tools',
    });
    expect(err.message).toContain("'tool_search'");
    expect(gw.mock.requests.length).toBe(before);
  });

  it("maps Codex's web_search to Anthropic's web search tool", async () => {
    const r = await post(
      '/v1/responses',
      codexBody([{ type: 'web_search', filters: { allowed_domains: ['example.com'] } }]),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('x-modelgate-dropped-tools')).toBeNull();
    const tools = gw.mock.requests.at(-1)?.body.tools;
    expect(tools).toContainEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      allowed_domains: ['example.com'],
    });
    expect(tools.map((t: any) => t.name)).toEqual(['exec_command', 'web_search']);
  });

  for (const stream of [false, true])
    it(`drops tool_search when the operator allows it, and says so in a header (${stream ? 'stream' : 'JSON'})`, async () => {
      await gw.server.ctx.options.set('global.drop_unsupported_hosted_tools_enabled', 'true');
      try {
        const r = await post(
          '/v1/responses',
          codexBody([{ type: 'tool_search' }, { type: 'web_search' }], stream),
        );
        expect(r.status).toBe(200);
        expect(r.headers.get('x-modelgate-dropped-tools')).toBe('tool_search');
        await r.text();
        const tools = gw.mock.requests.at(-1)?.body.tools;
        expect(tools.map((t: any) => t.type ?? 'custom')).toEqual(['custom', 'web_search_20250305']);
      } finally {
        await gw.server.ctx.options.set('global.drop_unsupported_hosted_tools_enabled', 'false');
      }
    });

  it("maps Claude Code's web search to a Responses channel's and a Gemini channel's", async () => {
    const client = new Anthropic({ apiKey: gw.apiKey, baseURL: gw.server.url, maxRetries: 0 });
    const body = {
      max_tokens: 1024,
      messages: [{ role: 'user' as const, content: 'What changed today?' }],
      tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 8 }],
    };
    await client.messages.create({ ...body, model: 'hosted-gpt' });
    expect(gw.mock.requests.at(-1)?.body.tools).toEqual([{ type: 'web_search' }]);
    await client.messages.create({ ...body, model: 'hosted-gemini' });
    expect(gw.mock.requests.at(-1)?.body.tools).toEqual([{ googleSearch: {} }]);
  });

  it("maps a chat client's web_search_options to Anthropic's web search tool", async () => {
    const client = new OpenAI({ apiKey: gw.apiKey, baseURL: `${gw.server.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'hosted-claude',
      messages: [{ role: 'user', content: 'News?' }],
      web_search_options: { search_context_size: 'low' },
    });
    expect(gw.mock.requests.at(-1)?.body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search' },
    ]);
  });

  it("refuses Claude's code execution on a Gemini channel in Anthropic's error shape", async () => {
    const r = await post(
      '/v1/messages',
      {
        model: 'hosted-gemini',
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Compute it' }],
        tools: [{ type: 'code_execution_20250522', name: 'code_execution' }],
      },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(r.status).toBe(400);
    const json = (await r.json()) as { type: string; error: { type: string; message: string } };
    expect(json.type).toBe('error');
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toContain("'code_execution'");
  });

  it("maps Gemini's googleSearch to Anthropic's web search tool", async () => {
    const r = await post(`/v1beta/models/hosted-claude:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'News?' }] }],
      tools: [{ googleSearch: {} }],
    });
    expect(r.status).toBe(200);
    expect(gw.mock.requests.at(-1)?.body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search' },
    ]);
  });
});
