import { UserStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { Balance } from '../../ledger/balance.ts';
import { readConsistent } from '../../ledger/reload.ts';
import type { LedgerWriter } from '../../ledger/writer.ts';

export interface UserSetting {
  notify_type?: string;
  quota_warning_threshold?: number;
  webhook_url?: string;
  webhook_secret?: string;
  notification_email?: string;
  accept_unset_model_ratio_model?: boolean;
}

/** What the relay needs of a user, plus the spendable balance the ledger keeps for it. */
export interface UserEntry {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  email: string;
  setting: UserSetting;
  balance: Balance;
}

function parseSetting(raw: string | null): UserSetting {
  if (!raw) return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

/**
 * Users by id, loaded on first use and then held in memory; `user:<id>` on the bus reloads the row (the
 * console changed the role, group or balance) while keeping what is pending or held for requests in flight.
 */
export class UserCache {
  private byId = new Map<number, UserEntry>();
  private loading = new Map<number, Promise<UserEntry | null>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly writer: LedgerWriter,
  ) {
    ctx.bus.subscribe('user:*', (id) => {
      const n = Number(id);
      if (this.byId.has(n)) void this.refresh(n).catch((err) => ctx.log.error({ err }, 'user reload failed'));
    });
  }

  private read(id: number) {
    return this.ctx.db.db
      .selectFrom('users')
      .select(['id', 'username', 'role', 'status', 'group', 'email', 'setting', 'quota', 'deleted_at'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  peek(id: number): UserEntry | undefined {
    return this.byId.get(id);
  }

  get(id: number): UserEntry | null | Promise<UserEntry | null> {
    const hit = this.byId.get(id);
    if (hit) return hit;
    let p = this.loading.get(id);
    if (!p) {
      p = readConsistent(
        this.writer,
        () => this.read(id),
        (row) => {
          if (!row) return null;
          const entry: UserEntry = {
            id: row.id,
            username: row.username,
            role: row.role,
            status: row.deleted_at ? UserStatus.Deleted : row.status,
            group: row.group,
            email: row.email,
            setting: parseSetting(row.setting),
            balance: new Balance(Number(row.quota)),
          };
          this.byId.set(id, entry);
          return entry;
        },
      ).finally(() => this.loading.delete(id));
      this.loading.set(id, p);
    }
    return p;
  }

  async refresh(id: number): Promise<void> {
    await readConsistent(
      this.writer,
      () => this.read(id),
      (row) => {
        const entry = this.byId.get(id);
        if (!entry) return;
        if (!row) {
          entry.status = UserStatus.Deleted;
          return;
        }
        entry.username = row.username;
        entry.role = row.role;
        entry.status = row.deleted_at ? UserStatus.Deleted : row.status;
        entry.group = row.group;
        entry.email = row.email;
        entry.setting = parseSetting(row.setting);
        entry.balance.db = Number(row.quota);
      },
    );
  }
}
