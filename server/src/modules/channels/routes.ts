import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { breakersFor } from '../../relay/route/breaker/index.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { updateAllBalances, updateBalance } from './balance.ts';
import { DEFAULT_MODELS, KNOWN_MODELS } from './catalog.ts';
import { fetchUpstreamModels } from './fetch-models.ts';
import { startChannelJobs } from './jobs.ts';
import { disableKeyAt, editKeys, enableKey } from './key-status.ts';
import { testKey } from './key-test.ts';
import { keyViews } from './key-views.ts';
import {
  batchTagSchema,
  channelCreateSchema,
  channelUpdateSchema,
  fetchModelsSchema,
  idsSchema,
  keyEditSchema,
  nameList,
  tagEditSchema,
  tagSchema,
} from './schema.ts';
import {
  channelView,
  copyChannel,
  createChannels,
  deleteChannels,
  deleteDisabledChannels,
  deleteOneChannel,
  editTag,
  fixAbilities,
  mustGet,
  setTagOnChannels,
  setTagStatus,
  updateChannel,
} from './service.ts';
import { channelModelNames, enabledModels, listChannels, searchChannels } from './store.ts';
import { testAllChannels, testChannel } from './testing.ts';
import { firstKey } from './upstream.ts';

const bool = z
  .union([z.boolean(), z.string()])
  .transform((v) => v === true || v === 'true' || v === '1')
  .catch(false);
const listQuery = z.object({
  p: z.coerce.number().int().min(0).catch(0),
  page_size: z.coerce.number().int().min(1).max(1000).catch(10),
  id_sort: bool.default(false),
  tag_mode: bool.default(false),
});
const searchQuery = z.object({
  keyword: z.string().max(200).default(''),
  group: z.string().max(64).default(''),
  model: z.string().max(191).default(''),
  id_sort: bool.default(false),
  tag_mode: bool.default(false),
});
const idParam = z.object({
  id: z.coerce.number({ error: 'channel id must be a number' }).int().positive('channel id must be a number'),
});
const copyQuery = z.object({
  suffix: z.string().max(50).default('_copy'),
  reset_balance: bool.default(true),
});
const testQuery = z.object({
  model: z.string().max(191).optional(),
  /** One key of a multi-key channel, by position. */
  key: z.coerce.number().int().min(0).optional(),
});

/** /api/channel (admin): the channel list, its edits, and everything that keeps channels healthy. */
const channelsFeature: Feature = (app, ctx: AppContext) => {
  const admin = { preHandler: requireAdmin(ctx) };
  // A channel out of rotation behind its circuit breaker carries `circuit: {state, until}` in the lists.
  const breakers = breakersFor(ctx);
  const withCircuit = <T extends { id: number }>(items: T[]) =>
    items.map((c) => {
      const circuit = breakers.circuit(c.id);
      return circuit ? { ...c, circuit } : c;
    });

  app.get('/models', { preHandler: requireUser(ctx) }, async () => ok(DEFAULT_MODELS));

  app.get('/channel', admin, async (req) => {
    const q = listQuery.parse(req.query ?? {});
    const { items, total } = await listChannels(ctx.db, q.p, q.page_size, {
      idSort: q.id_sort,
      tagMode: q.tag_mode,
    });
    return { ...ok(withCircuit(items)), total };
  });

  app.get('/channel/search', admin, async (req) => {
    const q = parseOr400(searchQuery, req.query);
    return ok(withCircuit(await searchChannels(ctx.db, q, { idSort: q.id_sort, tagMode: q.tag_mode })));
  });

  app.get('/channel/models', admin, async () => {
    const names = [...new Set([...KNOWN_MODELS, ...(await channelModelNames(ctx.db))])].sort();
    return ok(names.map((id) => ({ id, object: 'model', created: 1626777600, owned_by: 'system' })));
  });

  app.get('/channel/models_enabled', admin, async () => ok(await enabledModels(ctx.db)));

  app.get('/channel/test', admin, async () => {
    if (!testAllChannels(ctx)) throw new ApiError('a test of all channels is already running', 409);
    return ok(undefined, 'testing all channels in the background; refresh the list to see the results');
  });

  app.get('/channel/test/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const { model, key } = parseOr400(testQuery, req.query);
    if (key !== undefined) {
      const { keys, ...r } = await testKey(ctx, id, key, model);
      return { ...r, data: { keys } };
    }
    const r = await testChannel(ctx, id, model);
    return { success: r.success, message: r.message, time: r.time, data: await channelView(ctx, id) };
  });

  app.get('/channel/update_balance', admin, async () => {
    const r = await updateAllBalances(ctx);
    return ok(r, `updated ${r.updated} balance(s)${r.failed ? `, ${r.failed} failed` : ''}`);
  });

  app.get('/channel/update_balance/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const balance = await updateBalance(ctx, id);
    return { ...ok(balance), balance };
  });

  app.get('/channel/fetch_models/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const row = await mustGet(ctx.db.db, id);
    return ok(
      await fetchUpstreamModels(ctx, {
        type: Number(row.type),
        baseUrl: row.base_url,
        key: firstKey(row.key),
        organization: row.openai_organization ?? '',
        other: row.other ?? '',
        setting: row.setting ?? '',
      }),
    );
  });

  app.post('/channel/fetch_models', admin, async (req) => {
    const b = parseOr400(fetchModelsSchema, req.body);
    return ok(
      await fetchUpstreamModels(ctx, {
        type: b.type,
        baseUrl: b.base_url,
        key: firstKey(b.key),
        other: b.other,
        setting: b.setting,
      }),
    );
  });

  app.post('/channel/fix', admin, async () => {
    const n = await fixAbilities(ctx);
    return ok(n);
  });

  app.delete('/channel/disabled', admin, async () => ok(await deleteDisabledChannels(ctx)));

  app.post('/channel/batch', admin, async (req) => {
    const { ids } = parseOr400(idsSchema, req.body);
    return ok(await deleteChannels(ctx, ids));
  });

  app.post('/channel/batch/tag', admin, async (req) => {
    const { ids, tag } = parseOr400(batchTagSchema, req.body);
    return ok(await setTagOnChannels(ctx, ids, tag ?? ''));
  });

  app.put('/channel/tag', admin, async (req) => {
    const b = parseOr400(tagEditSchema, req.body);
    const list = (v: string | string[] | null | undefined, what: string, max: number) => {
      if (v == null) return undefined;
      const parsed = parseOr400(nameList(what, max), v);
      return parsed.length ? parsed : undefined;
    };
    let modelMapping: string | undefined;
    if (b.model_mapping != null && b.model_mapping.trim() !== '') {
      try {
        const m = JSON.parse(b.model_mapping);
        if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error();
      } catch {
        throw new ApiError('model_mapping must be valid JSON (an object)');
      }
      modelMapping = b.model_mapping.trim();
    }
    const n = await editTag(ctx, {
      tag: b.tag,
      newTag: b.new_tag ?? undefined,
      modelMapping,
      models: list(b.models, 'models', 191),
      groups: list(b.groups, 'groups', 64),
      priority: b.priority ?? undefined,
      weight: b.weight ?? undefined,
    });
    return ok(n);
  });

  app.post('/channel/tag/enabled', admin, async (req) =>
    ok(await setTagStatus(ctx, parseOr400(tagSchema, req.body).tag, 1)),
  );
  app.post('/channel/tag/disabled', admin, async (req) =>
    ok(await setTagStatus(ctx, parseOr400(tagSchema, req.body).tag, 2)),
  );

  app.post('/channel/copy/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const q = parseOr400(copyQuery, req.query);
    return ok({ id: await copyChannel(ctx, id, q.suffix, q.reset_balance, req.user!.role) });
  });

  app.get('/channel/:id/keys', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    return ok(keyViews(await mustGet(ctx.db.db, id)));
  });

  app.post('/channel/:id/keys', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const edit = parseOr400(keyEditSchema, req.body);
    if (edit.action === 'enable') await enableKey(ctx, id, edit.index);
    else if (edit.action === 'disable') await disableKeyAt(ctx, id, edit.index);
    else return ok(await editKeys(ctx, id, edit));
    return ok(keyViews(await mustGet(ctx.db.db, id)));
  });

  app.get('/channel/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    return ok(await channelView(ctx, id));
  });

  app.post('/channel', admin, async (req) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    // Accepts the channel itself, or {mode, channel} as newer consoles send it.
    const raw =
      body.channel && typeof body.channel === 'object'
        ? { ...(body.channel as object), mode: body.mode }
        : body;
    const ids = await createChannels(ctx, parseOr400(channelCreateSchema, raw));
    return ok({ ids }, `created ${ids.length} channel(s)`);
  });

  app.put('/channel', admin, async (req) =>
    ok(await updateChannel(ctx, parseOr400(channelUpdateSchema, req.body), req.user!.role)),
  );

  app.delete('/channel/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    await deleteOneChannel(ctx, id);
    return ok();
  });

  startChannelJobs(ctx);
};

export default channelsFeature;
