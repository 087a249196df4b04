import { describe, expect, it } from 'vitest';
import { CF_ANSWER, CF_EMBED_TOKENS, startCloudflareMock } from './support/mock-cloudflare.ts';
import { billOneTwo, failed, providerSuite } from './support/provider-harness.ts';

/**
 * Cloudflare Workers AI (type 39) channels made by an admin through the console, used with the official OpenAI
 * and Anthropic clients against a mock that checks the API token and that it belongs to the account in the
 * path. Each charge is compared with the usage priced by hand (prompt + 2 x completion).
 */
const CF_ACCOUNT = '0123456789abcdef0123456789abcdef';
const CF_TOKEN = 'Sn3lZJTBX6kkg7OdcBUAxOO963GEIyGQqnFTOFYY';
const CF_OTHER_TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AB';
const CF_CHAT = '@cf/meta/llama-3.1-8b-instruct';
const CF_EMBED = '@cf/baai/bge-base-en-v1.5';
const CHAT_PATH = `/client/v4/accounts/${CF_ACCOUNT}/ai/v1/chat/completions`;

describe('Cloudflare Workers AI channels', () => {
  const t = providerSuite({
    mock: () => startCloudflareMock({ [CF_TOKEN]: CF_ACCOUNT, [CF_OTHER_TOKEN]: 'f'.repeat(32) }),
    prices: [CF_CHAT, CF_EMBED, 'cf-legacy', 'cf-other', 'cf-bad-token', 'cf-no-account', 'cf-unknown'],
    channels: (cf) => {
      const mapped = (model: string) => ({
        type: 39,
        key: CF_TOKEN,
        base_url: cf.url,
        models: [model],
        model_mapping: { [model]: CF_CHAT },
      });
      const account = JSON.stringify({ account_id: CF_ACCOUNT });
      return {
        cf: {
          type: 39,
          key: CF_TOKEN,
          base_url: cf.url,
          models: [CF_CHAT, CF_EMBED, 'cf-unknown'],
          setting: account,
        },
        'cf-legacy': { ...mapped('cf-legacy'), base_url: `${cf.url}/client/v4/accounts/${CF_ACCOUNT}/ai` },
        'cf-other': { ...mapped('cf-other'), other: CF_ACCOUNT },
        'cf-bad-token': { ...mapped('cf-bad-token'), key: CF_OTHER_TOKEN, setting: account },
        'cf-no-account': { type: 39, key: CF_TOKEN, base_url: cf.url, models: ['cf-no-account'] },
      };
    },
  });
  const bill = () => billOneTwo(CF_ANSWER.usage, t.ids.cf);

  /** A failure's text never carries a token. */
  function expectNoSecret(text: string | undefined) {
    expect(text).toMatch(/request id/);
    for (const token of [CF_TOKEN, CF_OTHER_TOKEN]) expect(text).not.toContain(token);
    expect(text).not.toContain('authorization=');
  }

  it('reaches the account path from the account_id setting, plain and streamed, with usage', async () => {
    const r = await t.billed(bill(), () => t.ask(CF_CHAT, 'hello'));
    expect(r.choices[0].message.content).toBe(CF_ANSWER.text);
    expect(r.usage?.prompt_tokens).toBe(CF_ANSWER.usage.prompt);
    expect(t.mock.requests.at(-1)?.path).toBe(CHAT_PATH);
    expect(t.mock.requests.at(-1)?.auth).toBe(`Bearer ${CF_TOKEN}`);

    const ask = { model: CF_CHAT, messages: [{ role: 'user' as const, content: 'hello' }] };
    await t.billedStream(ask, bill(), CF_ANSWER.deltas.join(''));
    expect(t.mock.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
  });

  it('answers an Anthropic client through the hub', async () => {
    const ask = { model: CF_CHAT, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] };
    await t.billedMessage(ask, bill(), CF_ANSWER.text);
    expect(t.mock.requests.at(-1)?.path).toBe(CHAT_PATH);
  });

  it('relays embeddings to the account path', async () => {
    const embed = { prompt: CF_EMBED_TOKENS, completion: 0, quota: CF_EMBED_TOKENS };
    const r = await t.billed(embed, () =>
      t.openai().embeddings.create({ model: CF_EMBED, input: ['hello', 'cf'], encoding_format: 'float' }),
    );
    expect(r.data.map((d) => d.embedding)).toEqual([
      [0.5, 0.5, -0.25],
      [0.2, 0.5, -0.25],
    ]);
    expect(t.mock.requests.at(-1)?.path).toBe(`/client/v4/accounts/${CF_ACCOUNT}/ai/v1/embeddings`);
  });

  it('takes a base URL that already names the account, and the account in other', async () => {
    for (const model of ['cf-legacy', 'cf-other']) {
      const r = await t.ask(model);
      expect(r.choices[0].message.content).toBe(CF_ANSWER.text);
      expect(t.mock.requests.at(-1)?.path).toBe(CHAT_PATH);
      expect(t.mock.requests.at(-1)?.body.model).toBe(CF_CHAT);
    }
  });

  it("maps Cloudflare's errors into the client's protocol without the token", async () => {
    const unknown = await failed(t.ask('cf-unknown'));
    expect(unknown.status).toBe(400);
    expect(unknown.message).toContain('No such model cf-unknown');
    expectNoSecret(unknown.message);

    const refused = await failed(t.askAnthropic('cf-bad-token'));
    expect(refused.status).toBe(403);
    expect(refused.error?.error?.type).toBe('permission_error');
    expect(refused.error?.error?.message).toContain('Authentication error');
    expectNoSecret(refused.error?.error?.message);

    const noAccount = await failed(t.ask('cf-no-account'));
    expect(noAccount.status).toBe(500);
    expect(noAccount.message).toContain('account_id');
  });

  it('refuses a key that is not an API token, and a bad account id, at channel save', async () => {
    const body = { type: 39, name: 'bad-cf', base_url: t.mock.url, models: [CF_CHAT] };
    await t.expectRefusedKeys(body, ['short', `Bearer ${CF_TOKEN}`, 'x'.repeat(12)], 'API token');
    const setting = JSON.stringify({ account_id: 'my-account' });
    const [r] = await t.saveEach({ ...body, name: 'bad-cf-account', setting }, [CF_TOKEN]);
    expect(r.status).toBe(400);
    expect(r.message).toContain('account_id');
  });

  it('passes the channel test and lists the served models of the account', async () => {
    const test = await t.admin.get(`/api/channel/test/${t.ids.cf}`);
    expect(test.success, test.message).toBe(true);
    expect(t.mock.requests.at(-1)?.path).toBe(CHAT_PATH);
    const models = await t.admin.get(`/api/channel/fetch_models/${t.ids.cf}`);
    expect(models.success, models.message).toBe(true);
    expect(models.data).toEqual([CF_EMBED, CF_CHAT].sort());
    expect(t.mock.requests.at(-1)?.path).toBe(`/client/v4/accounts/${CF_ACCOUNT}/ai/models/search`);
  });
});
