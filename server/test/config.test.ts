import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { main as configCli } from '../src/modules/config/cli.ts';
import { configJsonSchema } from '../src/modules/config/document.ts';
import { applyConfigFileAtStart } from '../src/modules/config/startup.ts';
import { until } from './support/budget-relay.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES, REDIS_URL, redisUp } from './support/databases.ts';
import { startInstances } from './support/instances.ts';
import { startServer, type TestServer } from './support/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
const yamlHeaders = { 'content-type': 'application/yaml' };

/** Runs `npm run config -- ...` in-process against `env`'s database; returns the exit code and what it printed. */
async function cli(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const log = console.log;
  const err = console.error;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void out.push(a.join(' '));
  try {
    const code = await configCli(args, { ...env, LOG_LEVEL: 'silent' });
    return { code, text: out.join('\n') };
  } finally {
    console.log = log;
    console.error = err;
  }
}

it('the published JSON Schema is the one the file is checked with', () => {
  const committed = JSON.parse(
    readFileSync(new URL('../../docs/config.schema.json', import.meta.url), 'utf8'),
  );
  expect(committed).toEqual(configJsonSchema());
});

for (const engine of DATABASES.filter((d) => d.name !== 'mysql')) {
  describe.skipIf(!engine.available)(`configuration as code on ${engine.name}`, () => {
    let server: TestServer;
    let root: ConsoleClient;
    let env: Record<string, string>;
    const channels = () => server.ctx.db.db.selectFrom('channels').selectAll().orderBy('id').execute();

    beforeAll(async () => {
      server = await startServer({ db: engine });
      env = {
        SQL_DSN: server.ctx.config.sqlDsn,
        SQLITE_PATH: server.ctx.config.sqlitePath,
        SESSION_SECRET: 'x',
      };
      root = await loginAs(server, { username: 'root', role: Role.Root });
      for (const [name, extra] of [
        ['main', { model_mapping: '{"gpt-4o": "gpt-4o-2024-08-06"}', priority: 5 }],
        ['spare', { setting: '{"proxy": ""}', tag: 'backup' }],
      ] as const) {
        const r = await root.post('/api/channel/', {
          type: 1,
          name,
          key: `sk-${name}-very-secret`,
          base_url: 'http://127.0.0.1:9',
          models: 'gpt-4o,gpt-4o-mini',
          group: 'default,vip',
          ...extra,
        });
        expect(r.success, r.message).toBe(true);
      }
      await root.put('/api/option/', { key: 'ModelRatio', value: '{"gpt-4o": 1.25}' });
      await root.put('/api/option/', { key: 'GroupRatio', value: '{"default": 1, "vip": 0.8}' });
      await root.put('/api/option/', { key: 'SMTPToken', value: 'smtp-very-secret' });
    });
    afterAll(() => server?.close());

    it('exports every option and channel without keys or secrets, and the export plans to no change', async () => {
      const r = await cli(['export', '--out', join(dir, `${engine.name}.yaml`)], env);
      expect(r.code, r.text).toBe(0);
      const text = readFileSync(join(dir, `${engine.name}.yaml`), 'utf8');
      expect(text).not.toContain('very-secret');
      const doc = parse(text);
      expect(doc.options.ModelRatio).toEqual({ 'gpt-4o': 1.25 });
      expect(doc.options.QuotaPerUnit).toBe(500000);
      expect(doc.options.SMTPToken).toBeUndefined();
      expect(doc.channels.map((c: { name: string }) => c.name)).toEqual(['main', 'spare']);
      expect(doc.channels[0]).toMatchObject({
        priority: 5,
        groups: ['default', 'vip'],
        model_mapping: { 'gpt-4o': 'gpt-4o-2024-08-06' },
      });
      expect(doc.channels[0].key).toBeUndefined();
      const api = await fetch(`${server.url}/api/config/export`, {
        headers: { cookie: root.cookie, 'new-api-user': String(root.userId) },
      });
      expect(await api.text()).toBe(text);
      const plan = await cli(['plan', join(dir, `${engine.name}.yaml`)], env);
      expect(plan.code, plan.text).toBe(0);
      expect(plan.text).toContain('No changes');
    });

    it('plans an edited file item by item, applies it in one go, and a second apply changes nothing', async () => {
      const doc = parse(readFileSync(join(dir, `${engine.name}.yaml`), 'utf8'));
      doc.options.ModelRatio = { 'gpt-4o': 2.5, 'gpt-4o-mini': 0.075 };
      doc.options.SMTPToken = { env: 'SMTP_TOKEN' };
      doc.channels[0].priority = 9;
      doc.channels = doc.channels.filter((c: { name: string }) => c.name !== 'spare');
      doc.channels.push({
        name: 'claude',
        type: 14,
        key: { secret: 'claude' },
        models: ['claude-sonnet-4-5'],
        groups: ['vip'],
      });
      const file = join(dir, `${engine.name}-edited.yaml`);
      const secrets = join(dir, `${engine.name}-secrets.yaml`);
      writeFileSync(file, stringify(doc));
      writeFileSync(secrets, stringify({ claude: 'sk-ant-claude-very-secret' }));
      const env2 = { ...env, SMTP_TOKEN: 'smtp-new-very-secret' };

      const before = await channels();
      const plan = await cli(['plan', file, '--secrets', secrets], env2);
      expect(plan.code, plan.text).toBe(0);
      expect(plan.text).toContain('~ option ModelRatio');
      expect(plan.text).toContain('~ option SMTPToken');
      expect(plan.text).toContain('~ channel main\n    priority: 5 -> 9');
      expect(plan.text).toContain('+ channel claude');
      expect(plan.text).toContain('- channel spare');
      expect(plan.text).toContain('Plan: 1 to add, 3 to change, 1 to delete.');
      expect(plan.text).not.toContain('very-secret');
      expect(await channels()).toEqual(before);

      const applied = await cli(['apply', file, '--secrets', secrets], env2);
      expect(applied.code, applied.text).toBe(0);
      const rows = await channels();
      expect(rows.map((c) => c.name)).toEqual(['main', 'claude']);
      expect(rows[0]).toMatchObject({ priority: 9, key: 'sk-main-very-secret' });
      expect(rows[1]).toMatchObject({ type: 14, key: 'sk-ant-claude-very-secret', group: 'vip' });
      const abilities = await server.ctx.db.db
        .selectFrom('abilities')
        .selectAll()
        .where('channel_id', '=', rows[1].id)
        .execute();
      expect(abilities.map((a) => `${a.group}/${a.model}`)).toEqual(['vip/claude-sonnet-4-5']);
      const stored = await server.ctx.db.db
        .selectFrom('options')
        .select(['key', 'value'])
        .where('key', 'in', ['ModelRatio', 'SMTPToken'])
        .execute();
      expect(Object.fromEntries(stored.map((o) => [o.key, o.value]))).toEqual({
        ModelRatio: '{"gpt-4o":2.5,"gpt-4o-mini":0.075}',
        SMTPToken: 'smtp-new-very-secret',
      });

      const audit = await root.get('/api/audit/?entity=config');
      expect(audit.data.total).toBe(1);
      expect(audit.data.items[0]).toMatchObject({
        action: 'config apply',
        target: `${engine.name}-edited.yaml`,
      });
      expect(audit.data.items[0].changes).toHaveLength(5);
      expect(JSON.stringify(audit.data)).not.toContain('very-secret');

      const again = await cli(['apply', file, '--secrets', secrets], env2);
      expect(again.text).toContain('No changes');
      expect((await root.get('/api/audit/?entity=config')).data.total).toBe(1);
      expect((await root.get('/api/audit/verify')).data.ok).toBe(true);
    });

    it('refuses a bad file whole, with each line and reason, and changes nothing', async () => {
      const good = await fetch(`${server.url}/api/config/export`, {
        headers: { cookie: root.cookie, 'new-api-user': String(root.userId) },
      }).then((r) => r.text());
      const doc = parse(good);
      doc.options.NoSuchOption = 1;
      doc.channels[0].priority = 'high';
      doc.channels[1].colour = 'blue';
      const bad = stringify(doc);
      const lineOf = (needle: string) => bad.split('\n').findIndex((l) => l.includes(needle)) + 1;
      const before = { channels: await channels(), options: server.ctx.options.all() };
      const r = await root.request('POST', '/api/config/apply', bad, yamlHeaders);
      expect(r.status).toBe(400);
      expect(r.message).toContain('nothing was changed');
      expect(r.message).toContain(`line ${lineOf('NoSuchOption')}`);
      expect(r.message).toContain(`line ${lineOf('priority: high')}`);
      expect(r.message).toContain(`line ${lineOf('colour: blue')}`);
      expect(r.message).toMatch(/unknown key: colour/);
      // Schema-valid but against the rules: a negative ratio, a second channel of the same name.
      const dup = parse(good);
      dup.options = { ModelRatio: { 'gpt-4o': -1 } };
      dup.channels[1].name = dup.channels[0].name;
      const twice = stringify(dup);
      const r2 = await root.request('POST', '/api/config/plan', { config: twice });
      expect(r2.status).toBe(400);
      expect(r2.message).toContain('must not be less than 0');
      expect(r2.message).toContain(
        `line ${twice.split('\n').lastIndexOf('  - name: main') + 1} (channels.1.name): a second channel named "main"`,
      );
      const garbage = await root.request(
        'POST',
        '/api/config/apply',
        'version: 1\noptions: [unclosed',
        yamlHeaders,
      );
      expect(garbage.status).toBe(400);
      expect(garbage.message).toContain('line 2');
      expect({ channels: await channels(), options: server.ctx.options.all() }).toEqual(before);
    });

    it('is root only over the API, and a CI job can apply through it', async () => {
      const admin = await loginAs(server, { username: `admin-${engine.name}`, role: Role.Admin });
      expect((await admin.get('/api/config/export')).status).toBe(403);
      expect((await admin.request('POST', '/api/config/plan', { config: 'version: 1' })).status).toBe(403);
      expect((await admin.request('POST', '/api/config/apply', { config: 'version: 1' })).status).toBe(403);
      const r = await root.request(
        'POST',
        '/api/config/apply',
        'version: 1\noptions:\n  ModelRatio: {gpt-4o: 3}\n',
        yamlHeaders,
      );
      expect(r.success, r.message).toBe(true);
      expect(r.data.text).toContain('Plan: 0 to add, 1 to change, 0 to delete.');
      expect(server.ctx.options.json('ModelRatio')).toEqual({ 'gpt-4o': 3 });
      expect((await channels()).map((c) => c.name)).toEqual(['main', 'claude']);
    });
  });
}

it('CONFIG_FILE is applied at start by the master, and a refused file stops the start', async () => {
  const file = join(dir, 'start.yaml');
  writeFileSync(file, stringify({ version: 1, options: { ModelRatio: { 'gpt-start': 7 } }, channels: [] }));
  const server = await startServer({ env: { CONFIG_FILE: file } });
  try {
    await applyConfigFileAtStart(server.ctx);
    expect(server.ctx.options.json('ModelRatio')).toEqual({ 'gpt-start': 7 });
    writeFileSync(file, 'version: 2\n');
    await expect(applyConfigFileAtStart(server.ctx)).rejects.toThrow(/line 1 \(version\)/);
  } finally {
    await server.close();
  }
});

describe.skipIf(!(await redisUp()))('two instances follow an apply', () => {
  it('both nodes reload options and channels when the command applies a file', async () => {
    const cluster = await startInstances(2);
    try {
      const [a, b] = cluster.nodes;
      const env = {
        SQL_DSN: a.ctx.config.sqlDsn,
        SQLITE_PATH: a.ctx.config.sqlitePath,
        REDIS_CONN_STRING: REDIS_URL,
      };
      const file = join(dir, 'cluster.yaml');
      writeFileSync(
        file,
        stringify({
          version: 1,
          options: { ModelRatio: { 'gpt-cluster': 4 } },
          channels: [{ name: 'only', type: 1, key: 'sk-cluster', models: ['gpt-cluster'] }],
        }),
      );
      const r = await cli(['apply', file], env);
      expect(r.code, r.text).toBe(0);
      for (const node of [a, b])
        await until(() => node.ctx.options.json<Record<string, number>>('ModelRatio')['gpt-cluster'] === 4);
      const models = async (node: typeof a) => {
        const admin = await loginAs(node, { username: `root-${node.url.split(':').pop()}`, role: Role.Root });
        return (await admin.get('/api/channel/models_enabled')).data as string[];
      };
      expect(await models(b)).toContain('gpt-cluster');
    } finally {
      await cluster.close();
    }
  });
});
