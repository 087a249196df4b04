import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { optionDef } from '../options/registry.ts';
import type { DiffRules, Snapshot } from './diff.ts';

/**
 * What a console route changes, read before and after it runs: one tracker per entity, chosen by the route's
 * path. A tracker reads only the rows the request names (ids in the path, body or query) and the rows created
 * meanwhile (id above the largest seen before), except where the whole table is small (options, channels
 * edited by tag).
 */
export interface Tracker {
  entity: string;
  rules: DiffRules;
  /** Reads the rows this request may change; `scope` comes from the same request's `before` read. */
  read(ctx: AppContext, req: FastifyRequest, scope?: Scope): Promise<{ rows: Snapshot; scope: Scope }>;
}

/** The ids a request touches ('all' = the whole table) and the largest id before it ran. */
export interface Scope {
  ids: number[] | 'all';
  maxId: number;
}

type IdTable = 'channels' | 'users' | 'tokens' | 'redemptions';

/** Numeric ids named by the request: `:id`, body `id`/`ids`, query `id`. */
function requestIds(req: FastifyRequest): number[] {
  const found: unknown[] = [];
  const pick = (o: unknown) => {
    if (!o || typeof o !== 'object') return;
    const r = o as Record<string, unknown>;
    found.push(r.id);
    if (Array.isArray(r.ids)) found.push(...r.ids);
  };
  pick(req.params);
  pick(req.body);
  pick(req.query);
  return [...new Set(found.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0))];
}

const rowsById = (rows: Array<Record<string, unknown>>): Snapshot =>
  new Map(rows.map((r) => [String(r.id), r]));

/**
 * A table with integer ids. `ids` says which rows a request touches (default: the ids it names, else the whole
 * table); `owner` keeps rows created meanwhile to those of the caller (tokens).
 */
function idTable(
  table: IdTable,
  entity: string,
  rules: DiffRules,
  opts: { ids?: (req: FastifyRequest) => number[] | 'all'; owner?: 'user_id' } = {},
): Tracker {
  return {
    entity,
    rules,
    async read(ctx, req, scope) {
      const db = ctx.db.db;
      const current = scope ?? {
        ids: opts.ids ? opts.ids(req) : requestIds(req).length ? requestIds(req) : 'all',
        maxId: Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.max('id').as('m'))
              .executeTakeFirst()
          )?.m ?? 0,
        ),
      };
      let q = db.selectFrom(table).selectAll();
      if (current.ids !== 'all') {
        const ids = current.ids;
        q = q.where((eb) => {
          const fresh = opts.owner
            ? eb.and([eb('id', '>', current.maxId), eb(opts.owner, '=', req.user?.id ?? 0)])
            : eb('id', '>', current.maxId);
          return ids.length ? eb.or([eb('id', 'in', ids), fresh]) : fresh;
        });
      }
      return { rows: rowsById((await q.execute()) as Array<Record<string, unknown>>), scope: current };
    },
  };
}

/** The options table, key by key; secret options (registry) redacted. */
const options: Tracker = {
  entity: 'option',
  rules: { secret: (_field, row) => optionDef(String(row.key))?.secret === true },
  async read(ctx) {
    const rows = await ctx.db.db.selectFrom('options').select(['key', 'value']).execute();
    return {
      rows: new Map(rows.map((r) => [r.key, { key: r.key, value: r.value }])),
      scope: { ids: 'all', maxId: 0 },
    };
  },
};

const set = (...names: string[]) => new Set(names);
const columns =
  (...names: string[]) =>
  (field: string) =>
    names.includes(field);

/** The users a route names, else the caller (self-service routes). */
const userIds = (req: FastifyRequest) => {
  const ids = requestIds(req);
  return ids.length ? ids : req.user ? [req.user.id] : [];
};

const TRACKERS: Array<[prefix: string, tracker: Tracker]> = [
  ['/api/option', options],
  [
    '/api/channel',
    idTable('channels', 'channel', {
      secret: columns('key'),
      ignore: set(
        'test_time',
        'response_time',
        'balance',
        'balance_updated_time',
        'used_quota',
        'key_status',
      ),
    }),
  ],
  [
    '/api/token',
    idTable(
      'tokens',
      'token',
      { secret: columns('key'), ignore: set('accessed_time', 'used_quota', 'budget_used') },
      { ids: (req) => requestIds(req), owner: 'user_id' },
    ),
  ],
  [
    '/api/redemption',
    idTable('redemptions', 'redemption', { secret: columns('key') }, { ids: (req) => requestIds(req) }),
  ],
  [
    '/api/user',
    idTable(
      'users',
      'user',
      {
        secret: columns('password', 'access_token'),
        ignore: set('used_quota', 'request_count', 'budget_used'),
      },
      { ids: userIds },
    ),
  ],
];

/** The tracker of a route pattern such as `/api/channel/:id`, if its entity is tracked. */
export function trackerFor(routeUrl: string): Tracker | undefined {
  return TRACKERS.find(([prefix]) => routeUrl === prefix || routeUrl.startsWith(`${prefix}/`))?.[1];
}
