import { ImportRefused } from './refused.ts';
import type { SourceDb } from './source.ts';

export type Flavor = 'new-api' | 'one-api';

export interface SourceShape {
  flavor: Flavor;
  /** The columns of each table the source has, by table name. */
  tables: Map<string, Set<string>>;
}

/** Tables and columns without which a database is not one of the two projects' (GORM models in their model/). */
const REQUIRED: Record<string, string[]> = {
  users: ['id', 'username', 'password', 'role', 'status', 'quota'],
  tokens: ['id', 'user_id', 'key', 'status', 'remain_quota'],
  channels: ['id', 'type', 'key', 'models'],
  options: ['key', 'value'],
};

/**
 * Reads the source's tables and decides which project wrote it. one-api keeps channel credentials in
 * `channels.config` and a token's models in `tokens.models`; new-api has soft-deleted users and
 * `tokens.model_limits`. A database with neither shape (or this gateway's own) is refused before any write.
 */
export async function detectSource(src: SourceDb): Promise<SourceShape> {
  const tables = new Map<string, Set<string>>();
  let found: Awaited<ReturnType<typeof src.db.introspection.getTables>>;
  try {
    found = await src.db.introspection.getTables();
  } catch (err) {
    throw new ImportRefused(`cannot read the tables of ${src.label}: ${(err as Error).message}`);
  }
  for (const t of found) {
    if (src.dialect === 'postgres' && t.schema && t.schema !== 'public') continue;
    tables.set(t.name.toLowerCase(), new Set(t.columns.map((c) => c.name.toLowerCase())));
  }
  const missing: string[] = [];
  for (const [table, cols] of Object.entries(REQUIRED)) {
    const have = tables.get(table);
    if (!have) missing.push(`table ${table}`);
    else for (const c of cols) if (!have.has(c)) missing.push(`${table}.${c}`);
  }
  if (missing.length)
    throw new ImportRefused(
      `${src.label} is not a new-api or one-api database (missing ${missing.join(', ')}); nothing was written`,
    );
  const users = tables.get('users') as Set<string>;
  const tokens = tables.get('tokens') as Set<string>;
  const channels = tables.get('channels') as Set<string>;
  if (users.has('username_key') || channels.has('key_status'))
    throw new ImportRefused(
      `${src.label} is a ModelGate database, not new-api or one-api; nothing was written`,
    );
  const oneApi = channels.has('config') || (!tokens.has('model_limits') && tokens.has('models'));
  return { flavor: oneApi ? 'one-api' : 'new-api', tables };
}
