import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelType, Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledChecks } from '../src/modules/channels/compat/schedule.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type CompatMock, startCompatMock } from './support/mock-compat.ts';
import { flushLedger, seedChannel, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The compatibility check of a channel: recorded client scripts (plain, streaming, a tool round trip, thinking
 * carried across a tool call, an image) in each client format, sent through the relay pinned to the channel,
 * against mock providers of each channel format that check what the real ones check.
 */
const SCRIPTS = ['plain', 'stream', 'tools', 'thinking', 'image'];
const FORMATS = ['openai', 'responses', 'anthropic', 'gemini'];
const MODELS = ['deepseek-reasoner', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'gpt-5', 'percall-model'];

type Cells = Record<string, Record<string, { verdict: string; reason: string }>>;
const verdicts = (cells: Cells) =>
  Object.fromEntries(
    SCRIPTS.map((s) => [s, Object.fromEntries(FORMATS.map((f) => [f, cells[s][f].verdict]))]),
  );
const every = (verdict: string, scripts = SCRIPTS) =>
  Object.fromEntries(scripts.map((s) => [s, Object.fromEntries(FORMATS.map((f) => [f, verdict]))]));

async function priceModels(server: TestServer) {
  const ratio = (n: number) => JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, n])));
  await server.ctx.options.set('ModelRatio', ratio(1));
  await server.ctx.options.set('CompletionRatio', ratio(2));
}

/** A channel of each upstream format on one mock address. */
async function seedFormats(server: TestServer, url: string, suffix = '') {
  const { ctx } = server;
  const chat = await seedChannel(ctx, {
    type: 43,
    baseUrl: url,
    key: 'sk-upstream-good',
    models: ['deepseek-reasoner'],
    name: `chat${suffix}`,
  });
  const anthropic = await seedChannel(ctx, {
    type: ChannelType.Anthropic,
    baseUrl: url,
    key: 'sk-ant-mock',
    models: ['claude-sonnet-4-5'],
    name: `anthropic${suffix}`,
  });
  const gemini = await seedChannel(ctx, {
    type: ChannelType.Gemini,
    baseUrl: url,
    key: 'gm-mock',
    models: ['gemini-2.5-flash'],
    name: `gemini${suffix}`,
  });
  const responses = await seedChannel(ctx, {
    type: ChannelType.OpenAI,
    baseUrl: url,
    key: 'sk-resp-mock',
    models: ['gpt-5'],
    setting: { responses_api: true },
    name: `responses${suffix}`,
  });
  return { chat: chat.id, anthropic: anthropic.id, gemini: gemini.id, responses: responses.id };
}

describe('channel compatibility check', () => {
  let server: TestServer;
  let mock: CompatMock;
  let toolless: CompatMock;
  let admin: ConsoleClient & { userId: number };
  let channels: Awaited<ReturnType<typeof seedFormats>>;

  beforeAll(async () => {
    mock = await startCompatMock();
    toolless = await startCompatMock();
    toolless.dropTools = true;
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    await priceModels(server);
    admin = await loginAs(server, { username: 'compatadmin', role: Role.Admin, quota: 50_000_000 });
    channels = await seedFormats(server, mock.url);
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await toolless?.close();
  });

  async function usedQuota(userId: number): Promise<number> {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(u.used_quota);
  }

  it.each(['chat', 'anthropic', 'gemini', 'responses'] as const)(
    'a %s channel that serves every script passes every cell, and charges no more than the estimate',
    async (name) => {
      const id = channels[name];
      const estimate = await admin.get(`/api/channel/compat/${id}/estimate`);
      expect(estimate.status).toBe(200);
      expect(estimate.data.requests).toBe(28);
      expect(Number.isInteger(estimate.data.quota)).toBe(true);
      expect(estimate.data.quota).toBeGreaterThan(0);
      const before = await usedQuota(admin.userId);
      const r = await admin.post(`/api/channel/compat/${id}/run`);
      expect(r.status, r.message).toBe(200);
      const run = r.data.run;
      expect(verdicts(run.results), JSON.stringify(run.results)).toEqual(every('pass'));
      expect(run).toMatchObject({
        channel_id: id,
        passed: 20,
        failed: 0,
        trigger: 'manual',
        user_id: admin.userId,
      });
      expect(run.estimated_quota).toBe(estimate.data.quota);
      expect(Number.isInteger(run.charged_quota)).toBe(true);
      expect(run.charged_quota).toBeGreaterThan(0);
      expect(run.charged_quota).toBeLessThanOrEqual(estimate.data.quota);
      // What the run says it charged is what the admin's account paid, and what the log rows add up to.
      expect((await usedQuota(admin.userId)) - before).toBe(run.charged_quota);
      const rows = await server.ctx.logDb.db
        .selectFrom('logs')
        .select(['quota', 'channel_id'])
        .where('token_name', '=', 'compat-check')
        .where('channel_id', '=', id)
        .execute();
      expect(rows.reduce((n, x) => n + Number(x.quota), 0)).toBe(run.charged_quota);
    },
  );

  it('charges exactly the estimate for a model priced per call', async () => {
    await server.ctx.options.set('ModelPrice', JSON.stringify({ 'percall-model': 0.002 }));
    const { id } = await seedChannel(server.ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['percall-model'],
      modelMapping: { 'percall-model': 'claude-sonnet-4-5' },
    });
    const estimate = await admin.get(`/api/channel/compat/${id}/estimate`);
    // 28 calls at 0.002 US$ x 500,000 quota per US$.
    expect(estimate.data).toMatchObject({ perCall: true, requests: 28, quota: 28 * 1000 });
    const before = await usedQuota(admin.userId);
    const r = await admin.post(`/api/channel/compat/${id}/run`);
    expect(r.data.run.passed).toBe(20);
    expect(r.data.run.charged_quota).toBe(estimate.data.quota);
    expect((await usedQuota(admin.userId)) - before).toBe(estimate.data.quota);
  });

  it('fails the tool cells of a channel that drops tool calls, saying so, and passes the rest', async () => {
    const ids = await seedFormats(server, toolless.url, '-toolless');
    for (const id of Object.values(ids)) {
      const run = (await admin.post(`/api/channel/compat/${id}/run`)).data.run;
      expect(verdicts(run.results), JSON.stringify(run.results)).toEqual({
        ...every('pass', ['plain', 'stream', 'image']),
        ...every('fail', ['tools', 'thinking']),
      });
      for (const s of ['tools', 'thinking'])
        for (const f of FORMATS) {
          expect(run.results[s][f].reason).toMatch(/^first turn: missing tool call/);
          expect(run.results[s][f].code).toBe('missing_tool_call');
        }
    }
  });

  it('fails the tool cells of a channel whose thinking signatures do not come back as issued', async () => {
    const mangling = await startCompatMock();
    mangling.mangleSignatures = true;
    try {
      const { id } = await seedChannel(server.ctx, {
        type: ChannelType.Anthropic,
        baseUrl: mangling.url,
        key: 'sk-ant-mock',
        models: ['claude-sonnet-4-5'],
        autoBan: false,
      });
      const run = (await admin.post(`/api/channel/compat/${id}/run`)).data.run;
      expect(verdicts(run.results), JSON.stringify(run.results)).toEqual({
        ...every('pass', ['plain', 'stream', 'image']),
        ...every('fail', ['tools', 'thinking']),
      });
      for (const s of ['tools', 'thinking'])
        for (const f of FORMATS) {
          expect(run.results[s][f].code).toBe('signature_lost');
          expect(run.results[s][f].reason).toMatch(
            /^thinking signature lost: second turn \(tool result\) refused: HTTP 400: .*Invalid `signature`/,
          );
        }
    } finally {
      await mangling.close();
    }
  });

  it('fails the streamed cells of a channel whose streams break off, with the reason', async () => {
    const { id } = await seedChannel(server.ctx, {
      type: 43,
      baseUrl: mock.url,
      key: 'sk-midstream',
      models: ['deepseek-reasoner'],
      autoBan: false,
    });
    const run = (await admin.post(`/api/channel/compat/${id}/run`)).data.run;
    expect(verdicts(run.results), JSON.stringify(run.results)).toEqual({
      ...every('pass', ['plain', 'tools', 'image']),
      ...every('fail', ['stream', 'thinking']),
    });
    for (const s of ['stream', 'thinking'])
      for (const f of FORMATS) {
        expect(run.results[s][f].reason).toMatch(/stream/i);
        expect(run.results[s][f].code).toMatch(/^stream_/);
      }
  });

  it('keeps each run: the latest and the history, newest first', async () => {
    const id = channels.gemini;
    const latest = await admin.get(`/api/channel/compat/${id}`);
    expect(latest.data.scripts).toEqual(SCRIPTS);
    expect(latest.data.formats).toEqual(FORMATS);
    expect(latest.data.run.passed).toBe(20);
    await admin.post(`/api/channel/compat/${id}/run`);
    const history = await admin.get(`/api/channel/compat/${id}/history`);
    expect(history.data.runs).toHaveLength(2);
    expect(history.data.runs[0].id).toBeGreaterThan(history.data.runs[1].id);
    expect((await admin.get(`/api/channel/compat/${id}`)).data.run.id).toBe(history.data.runs[0].id);
  });

  it('forgets the runs of a deleted channel', async () => {
    const id = channels.gemini;
    const runs = () =>
      server.ctx.db.db.selectFrom('channel_compat_runs').select('id').where('channel_id', '=', id).execute();
    expect((await runs()).length).toBeGreaterThan(0);
    expect((await admin.del(`/api/channel/${id}/`)).status).toBe(200);
    expect(await runs()).toHaveLength(0);
    expect((await admin.get(`/api/channel/compat/${id}`)).data.run).toBeNull();
  });

  it('refuses users who are not admins, unknown channels, and a run the balance cannot cover', async () => {
    const user = await loginAs(server, { username: 'compatuser', quota: 50_000_000 });
    expect((await user.post(`/api/channel/compat/${channels.chat}/run`)).status).toBe(403);
    expect((await admin.get('/api/channel/compat/99999/estimate')).status).toBe(404);
    const poor = await loginAs(server, { username: 'compatpoor', role: Role.Admin, quota: 10 });
    const r = await poor.post(`/api/channel/compat/${channels.chat}/run`);
    expect(r.status).toBe(403);
    expect(r.message).toMatch(/below this check's estimated cost/);
    expect(await usedQuota(poor.userId)).toBe(0);
    const rows = await server.ctx.db.db
      .selectFrom('channel_compat_runs')
      .select('id')
      .where('user_id', '=', poor.userId)
      .execute();
    expect(rows).toHaveLength(0);
  });
});

describe('scheduled compatibility checks', () => {
  let server: TestServer;
  let mock: CompatMock;
  let hook: Server;
  const received: Array<{ body: string; signature: string }> = [];

  beforeAll(async () => {
    mock = await startCompatMock();
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['x-webhook-signature'] ?? '') });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    await server.ctx.options.set('fetch_setting.allow_private_ip', 'true');
    await priceModels(server);
    await seedUser(server.ctx, {
      quota: 50_000_000,
      role: Role.Root,
      setting: {
        notify_type: 'webhook',
        webhook_url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`,
        webhook_secret: 'compat-secret',
      },
    });
    await seedChannel(server.ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['claude-sonnet-4-5'],
      name: 'scheduled',
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    hook?.close();
  });

  it('is off by default, checks every enabled channel on a round, and tells root only when a cell changes', async () => {
    expect(server.ctx.options.int('ChannelCompatCheckInterval')).toBe(0);
    const first = await runScheduledChecks(server.ctx, server.app);
    expect(first).toEqual({ checked: 1, changes: [] });
    mock.dropTools = true;
    const second = await runScheduledChecks(server.ctx, server.app);
    expect(second.changes).toHaveLength(1);
    expect(second.changes[0].changes.map((c) => `${c.script}/${c.format}:${c.to}`).sort()).toEqual(
      ['tools', 'thinking'].flatMap((s) => FORMATS.map((f) => `${s}/${f}:fail`)).sort(),
    );
    await expect.poll(() => received.length).toBe(1);
    const notice = JSON.parse(received[0].body);
    expect(notice.type).toBe('channel_compat_changed');
    expect(notice.title).toMatch(/scheduled: compatibility changed/);
    expect(notice.content).toMatch(/tools \/ anthropic: pass -> fail \(first turn: missing tool call/);
    expect(received[0].signature).toBe(
      createHmac('sha256', 'compat-secret').update(received[0].body).digest('hex'),
    );
    // The same result again is no change; back to passing is one.
    expect((await runScheduledChecks(server.ctx, server.app)).changes).toEqual([]);
    mock.dropTools = false;
    const back = await runScheduledChecks(server.ctx, server.app);
    expect(back.changes[0].changes.every((c) => c.to === 'pass')).toBe(true);
    await expect.poll(() => received.length).toBe(2);
    const runs = await server.ctx.db.db.selectFrom('channel_compat_runs').selectAll().execute();
    expect(runs.map((r) => [r.trigger, Number(r.user_id)])).toEqual(Array(4).fill(['schedule', 0]));
  });
});
