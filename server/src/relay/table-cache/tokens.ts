import type { AppContext } from '../../context.ts';
import { type AllowList, compileAllowList } from '../../infra/ip-allow.ts';
import { Balance } from '../../ledger/balance.ts';
import { BUDGET_COLUMNS, Budget } from '../../ledger/budget/budget.ts';
import type { BudgetColumns } from '../../ledger/budget/rule.ts';
import { readConsistent } from '../../ledger/reload.ts';
import type { LedgerWriter } from '../../ledger/writer.ts';

export interface TokenEntry {
  id: number;
  userId: number;
  key: string;
  name: string;
  status: number;
  /** Unix seconds; -1 = never. */
  expiredTime: number;
  unlimited: boolean;
  /** Allowed client-facing model names when limits are enabled, else null. */
  modelLimits: Set<string> | null;
  /** Compiled IP allow list (open when empty). */
  allowIps: AllowList;
  group: string;
  deleted: boolean;
  balance: Balance;
  /** Requests and tokens per minute (relay/admit/limits); 0 = no limit. */
  rpmLimit: number;
  tpmLimit: number;
  /** The response cache is on for this token's requests (relay/response-cache/). */
  responseCache: boolean;
}

type Row = BudgetColumns & {
  id: number;
  user_id: number;
  key: string;
  name: string;
  status: number;
  expired_time: number;
  unlimited_quota: number;
  model_limits_enabled: number;
  model_limits: string | null;
  allow_ips: string | null;
  group: string;
  remain_quota: number;
  deleted_at: number | null;
  rpm_limit: number;
  tpm_limit: number;
  response_cache: number;
};

const NEGATIVE_TTL_MS = 10_000;

function limitsOf(row: Row): Set<string> | null {
  if (!row.model_limits_enabled) return null;
  return new Set(
    (row.model_limits ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
  );
}

/**
 * Tokens by key: read from the database the first time a key is seen, then served from memory.
 * `token:<id>` on the bus reloads that token (edit, status, quota, delete); unknown keys are remembered
 * briefly so a flood of bad keys does not reach the database, and forgotten on any token change.
 */
export class TokenCache {
  private byKey = new Map<string, TokenEntry>();
  private byId = new Map<number, TokenEntry>();
  private loading = new Map<string, Promise<TokenEntry | null>>();
  private missing = new Map<string, number>();
  /** Told about every console change to a token (the shared hold store rereads its balance). */
  onReload?: (account: string) => void;
  /** The ledger's clock, which budget periods are read from. */
  now: () => number = Date.now;

  constructor(
    private readonly ctx: AppContext,
    private readonly writer: LedgerWriter,
  ) {
    ctx.bus.subscribe('token:*', (id) => {
      this.missing.clear();
      const n = Number(id);
      this.onReload?.(`token:${n}`);
      if (this.byId.has(n))
        return this.refresh(n).catch((err) => ctx.log.error({ err }, 'token reload failed'));
    });
  }

  private select() {
    return this.ctx.db.db
      .selectFrom('tokens')
      .select([
        'id',
        'user_id',
        'key',
        'name',
        'status',
        'expired_time',
        'unlimited_quota',
        'model_limits_enabled',
        'model_limits',
        'allow_ips',
        'group',
        'remain_quota',
        'deleted_at',
        'rpm_limit',
        'tpm_limit',
        'response_cache',
        ...BUDGET_COLUMNS,
      ]);
  }

  get(key: string): TokenEntry | null | Promise<TokenEntry | null> {
    const hit = this.byKey.get(key);
    if (hit) return hit;
    const missUntil = this.missing.get(key);
    if (missUntil !== undefined) {
      if (missUntil > Date.now()) return null;
      this.missing.delete(key);
    }
    let p = this.loading.get(key);
    if (!p) {
      p = readConsistent(
        this.writer,
        () => this.select().where('key', '=', key).executeTakeFirst() as Promise<Row | undefined>,
        (row) => {
          if (!row || row.deleted_at) {
            if (this.missing.size > 100_000) this.missing.clear();
            this.missing.set(key, Date.now() + NEGATIVE_TTL_MS);
            return null;
          }
          const existing = this.byId.get(row.id);
          if (existing) return existing;
          const entry: TokenEntry = {
            id: row.id,
            userId: row.user_id,
            key: row.key,
            name: row.name,
            status: row.status,
            expiredTime: Number(row.expired_time),
            unlimited: !!row.unlimited_quota,
            modelLimits: limitsOf(row),
            allowIps: compileAllowList(row.allow_ips),
            group: row.group ?? '',
            deleted: false,
            balance: new Balance(Number(row.remain_quota), `token:${row.id}`),
            rpmLimit: Number(row.rpm_limit),
            tpmLimit: Number(row.tpm_limit),
            responseCache: Number(row.response_cache) === 1,
          };
          entry.balance.budget = new Budget(entry.balance.account);
          entry.balance.budget.configure(row, this.now());
          this.byKey.set(entry.key, entry);
          this.byId.set(entry.id, entry);
          return entry;
        },
      ).finally(() => this.loading.delete(key));
      this.loading.set(key, p);
    }
    return p;
  }

  async refresh(id: number): Promise<void> {
    await readConsistent(
      this.writer,
      () => this.select().where('id', '=', id).executeTakeFirst() as Promise<Row | undefined>,
      (row) => {
        const entry = this.byId.get(id);
        if (!entry) return;
        if (!row || row.deleted_at) {
          entry.deleted = true;
          this.byKey.delete(entry.key);
          this.byId.delete(id);
          return;
        }
        if (row.key !== entry.key) {
          this.byKey.delete(entry.key);
          entry.key = row.key;
          this.byKey.set(entry.key, entry);
        }
        entry.name = row.name;
        entry.status = row.status;
        entry.expiredTime = Number(row.expired_time);
        entry.unlimited = !!row.unlimited_quota;
        entry.modelLimits = limitsOf(row);
        entry.allowIps = compileAllowList(row.allow_ips);
        entry.group = row.group ?? '';
        entry.balance.db = Number(row.remain_quota);
        entry.balance.budget?.configure(row, this.now());
        entry.rpmLimit = Number(row.rpm_limit);
        entry.tpmLimit = Number(row.tpm_limit);
        entry.responseCache = Number(row.response_cache) === 1;
      },
    );
  }
}
