import { ChannelType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClientFormat } from './support/format-clients.ts';
import { say } from './support/guard-clients.ts';
import { type GuardedMock, startGuardedMock } from './support/mock-guarded.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Guardrails through the official SDKs of all four client formats against mock upstreams replaying recorded
 * answers: a prompt refused before anything is sent, a prompt masked before it is sent, a card number split
 * across stream deltas masked in the streamed answer, an answer stopped mid-stream, and a moderation channel
 * with a threshold.
 */
const FORMATS: ClientFormat[] = ['openai', 'responses', 'anthropic', 'gemini'];
const CARD_PIECES = ['Your card ', '4111 11', '11 1111 ', '1111', ' is on file.'];
/**
 * The answers' card (4111 1111 1111 1111) in any part that would give it away. Not '4111' alone: request ids
 * (yyyyMMddHHmmss...) and timestamps in a log row contain it at times (every request at 15:41:1x).
 */
const CARD_LEAK = /4111[ -]?1111/;

describe('relay: guardrails', () => {
  let server: TestServer;
  let mock: GuardedMock;
  let userId: number;
  let apiKey: string;
  let moderatedKey: string;
  let answerBlockKey: string;
  let openKey: string;

  beforeAll(async () => {
    mock = await startGuardedMock();
    server = await startServer();
    const { ctx } = server;
    userId = (await seedUser(ctx, { quota: 100_000_000 })).id;
    const token = (o = {}) => seedToken(ctx, { userId, remain: 100_000_000, ...o });
    apiKey = (await token()).apiKey;
    const moderated = await token();
    const answerBlock = await token();
    const open = await token();
    moderatedKey = moderated.apiKey;
    answerBlockKey = answerBlock.apiKey;
    openKey = open.apiKey;
    await ctx.options.set('ModelRatio', JSON.stringify({ 'guard-gpt': 1, 'guard-claude': 1 }));
    // DeepSeek's type speaks OpenAI chat only: a Responses client is converted to chat there.
    await seedChannel(ctx, { type: 43, baseUrl: mock.url, key: 'sk-chat', models: ['guard-gpt'] });
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-guarded',
      models: ['guard-claude'],
    });
    const moderation = await seedChannel(ctx, {
      baseUrl: mock.url,
      key: 'sk-moderation',
      models: ['omni-moderation-latest'],
      group: 'moderation',
    });
    await ctx.options.set(
      'guardrails.policies',
      JSON.stringify({
        strict: {
          window: 32,
          rules: [
            { id: 'codename', type: 'regex', pattern: 'project\\s+nightingale', flags: 'i', on: 'prompt' },
            { id: 'pii', type: 'pii', mode: 'mask' },
          ],
        },
        moderated: {
          rules: [
            { id: 'violence', type: 'moderation', channel_id: moderation.id, thresholds: { violence: 0.7 } },
          ],
        },
        'no-cards-out': {
          window: 16,
          rules: [{ id: 'card-out', type: 'pii', detectors: ['card'], on: 'answer', mode: 'block' }],
        },
      }),
    );
    await ctx.options.set('guardrails.group_policies', JSON.stringify({ '*': 'strict' }));
    await ctx.options.set(
      'guardrails.token_policies',
      JSON.stringify({
        [String(moderated.id)]: 'moderated',
        [String(answerBlock.id)]: 'no-cards-out',
        [String(open.id)]: '',
      }),
    );
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  const logRows = async (requestType: number) => {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', requestType)
      .orderBy('id', 'desc')
      .execute();
  };

  for (const format of FORMATS)
    it(`${format}: a prompt a blocking rule matches is refused in the caller's protocol, unsent and uncharged`, async () => {
      const before = mock.requests.length;
      const errorsBefore = (await logRows(5)).length;
      const consumedBefore = (await logRows(2)).length;
      const r = await say(
        format,
        server.url,
        apiKey,
        'guard-gpt',
        'Summarise Project  Nightingale for me',
        false,
      );
      expect(r.error?.status).toBe(400);
      expect(r.error?.message).toContain('guardrail rule codename');
      expect(mock.requests.length).toBe(before);
      const errors = await logRows(5);
      expect(errors.length).toBe(errorsBefore + 1);
      expect(JSON.parse(errors[0].other ?? '{}').guardrail).toEqual({
        rule: 'codename',
        policy: 'strict',
        side: 'prompt',
      });
      expect(JSON.stringify(errors[0])).not.toMatch(/nightingale/i);
      expect(Number(errors[0].quota)).toBe(0);
      expect((await logRows(2)).length).toBe(consumedBefore);
    });

  for (const [format, model] of [
    ['openai', 'guard-gpt'],
    ['responses', 'guard-gpt'],
    ['anthropic', 'guard-claude'],
    ['gemini', 'guard-gpt'],
  ] as Array<[ClientFormat, string]>)
    it(`${format} -> ${model}: the upstream receives the prompt with its personal data masked`, async () => {
      mock.pieces = ['Noted.'];
      const r = await say(
        format,
        server.url,
        apiKey,
        model,
        'My card is 4111 1111 1111 1111 and my mail jane.doe@example.com, order 1234567812345678.',
        false,
      );
      expect(r.error).toBeUndefined();
      expect(r.text).toBe('Noted.');
      const sent = JSON.stringify(mock.requests.at(-1)?.body);
      expect(sent).toContain('My card is [CARD] and my mail [EMAIL], order 1234567812345678.');
      expect(sent).not.toMatch(CARD_LEAK);
      expect(sent).not.toContain('jane.doe');
    });

  for (const [format, model] of [
    ['openai', 'guard-gpt'],
    ['responses', 'guard-gpt'],
    ['anthropic', 'guard-claude'],
    ['anthropic', 'guard-gpt'],
    ['gemini', 'guard-gpt'],
  ] as Array<[ClientFormat, string]>) {
    it(`${format} -> ${model}: a card number split across stream deltas is masked in the streamed answer`, async () => {
      mock.pieces = CARD_PIECES;
      const r = await say(format, server.url, apiKey, model, 'What card do I have on file?', true);
      expect(r.error).toBeUndefined();
      expect(r.text).toBe('Your card [CARD] is on file.');
    });
    it(`${format} -> ${model}: a non-streamed answer is masked too`, async () => {
      mock.pieces = CARD_PIECES;
      const r = await say(format, server.url, apiKey, model, 'What card do I have on file?', false);
      expect(r.error).toBeUndefined();
      expect(r.text).toBe('Your card [CARD] is on file.');
    });
  }

  it('a token assigned no policy is not checked', async () => {
    mock.pieces = CARD_PIECES;
    const r = await say('openai', server.url, openKey, 'guard-gpt', 'About Project Nightingale', true);
    expect(r.error).toBeUndefined();
    expect(r.text).toBe(CARD_PIECES.join(''));
  });

  for (const [format, model] of [
    ['openai', 'guard-gpt'],
    ['anthropic', 'guard-claude'],
    ['responses', 'guard-gpt'],
    ['gemini', 'guard-gpt'],
  ] as Array<[ClientFormat, string]>)
    it(`${format} -> ${model}: an answer a blocking rule matches mid-stream ends with the caller's error`, async () => {
      const intro = 'Here is what I found in the account records you asked about. ';
      mock.pieces = [intro, 'The card ', '4111 1111 ', '1111 1111', ' is the primary one.'];
      const rowsBefore = (await logRows(2)).length;
      // The rest of the answer leaves the upstream once the client has read the start of it.
      let read = () => {};
      mock.gate = { after: 1, open: new Promise<void>((r) => (read = r)) };
      const r = await say(format, server.url, answerBlockKey, model, 'Which card is primary?', true, () =>
        read(),
      ).finally(() => (mock.gate = undefined));
      expect(r.error?.message).toContain('guardrail rule card-out');
      expect(r.text).not.toMatch(CARD_LEAK);
      // The client got the answer up to the window before the card (16 characters held back at most).
      const answer = mock.pieces.join('');
      expect(answer.startsWith(r.text)).toBe(true);
      expect(r.text.length).toBeGreaterThanOrEqual(answer.indexOf('4111') - 16);
      // The stream's end reaches the client before its usage is counted and settled: wait for the row.
      const [row] = await vi.waitFor(
        async () => {
          const rows = await logRows(2);
          if (rows.length === rowsBefore) throw new Error('the stopped stream has no usage row yet');
          return rows;
        },
        { timeout: 15_000, interval: 20 },
      );
      expect(JSON.parse(row.other ?? '{}').guardrail).toEqual({ rule: 'card-out', side: 'answer' });
      expect(row.content).toContain('guardrail card-out stopped the answer');
      expect(JSON.stringify(row)).not.toMatch(CARD_LEAK);
    });

  for (const [format, model] of [
    ['openai', 'guard-gpt'],
    ['anthropic', 'guard-claude'],
  ] as Array<[ClientFormat, string]>)
    it(`${format} -> ${model}: a non-streamed answer a blocking rule matches is refused, logged and not charged`, async () => {
      mock.pieces = ['The card ', '4111 1111 1111 1111', ' is the primary one.'];
      const consumedBefore = (await logRows(2)).length;
      const r = await say(format, server.url, answerBlockKey, model, 'Which card is primary?', false);
      expect(r.error?.status).toBe(400);
      expect(r.error?.message).toContain('the answer was stopped by guardrail rule card-out');
      expect(r.error?.message).not.toMatch(CARD_LEAK);
      const [row] = await logRows(5);
      expect(JSON.parse(row.other ?? '{}').guardrail).toEqual({
        rule: 'card-out',
        policy: 'no-cards-out',
        side: 'answer',
      });
      expect(JSON.stringify(row)).not.toMatch(CARD_LEAK);
      expect((await logRows(2)).length).toBe(consumedBefore);
    });

  it("refuses a prompt the moderation channel scores at or over the rule's threshold", async () => {
    mock.pieces = ['Fine.'];
    mock.scores = { violence: 0.91 };
    const refused = await say(
      'anthropic',
      server.url,
      moderatedKey,
      'guard-claude',
      'a violent prompt',
      false,
    );
    expect(refused.error?.status).toBe(400);
    expect(refused.error?.message).toContain('guardrail rule violence');
    const asked = mock.requests.filter((r) => r.path.endsWith('/moderations')).at(-1);
    expect(asked?.body).toEqual({ model: 'omni-moderation-latest', input: 'a violent prompt' });
    expect(mock.requests.at(-1)?.path).toMatch(/moderations$/);

    mock.scores = { violence: 0.3 };
    const passed = await say('anthropic', server.url, moderatedKey, 'guard-claude', 'a calm prompt', false);
    expect(passed.error).toBeUndefined();
    expect(passed.text).toBe('Fine.');
  });
});
