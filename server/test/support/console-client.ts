import { Role } from '@modelgate/shared';
import { hashPassword } from '../../src/modules/auth/password.ts';
import { createAccount } from '../../src/modules/users/service.ts';
import type { TestServer } from './server.ts';

export interface ApiReply<T = any> {
  status: number;
  success: boolean;
  message: string;
  data: T;
  headers: Headers;
}

/**
 * A console API caller that keeps the session cookie and sends `New-Api-User` like the web app does.
 * `client.get('/api/user/self')`, `client.post('/api/user/manage', {id, action})`: the reply's status and
 * envelope fields, whatever the status.
 */
export class ConsoleClient {
  cookie = '';
  userId?: number;
  /** Extra headers sent on every call (e.g. `authorization` for access-token tests). */
  headers: Record<string, string> = {};

  constructor(readonly baseUrl: string) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiReply<T>> {
    const h: Record<string, string> = { 'cache-control': 'no-store', ...this.headers, ...headers };
    if (this.cookie && !('cookie' in h)) h.cookie = this.cookie;
    if (this.userId !== undefined && !('new-api-user' in h)) h['new-api-user'] = String(this.userId);
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (setCookie) {
      const value = setCookie.split(';')[0];
      this.cookie = value === 'session=' ? '' : value;
    }
    const text = await res.text();
    let json: any = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { message: text };
    }
    return {
      status: res.status,
      success: json.success === true,
      message: json.message ?? '',
      data: json.data,
      headers: res.headers,
    };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body ?? {}, headers);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body ?? {}, headers);
  }
  del<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  /** Password login; on success keeps the cookie and the user id for later calls. */
  async login(username: string, password: string): Promise<ApiReply> {
    const r = await this.post('/api/user/login', { username, password });
    if (r.success) this.userId = r.data.id;
    return r;
  }
}

/**
 * Creates a user straight through the accounts service (no HTTP, no rate limit) and returns a client logged
 * in as that user. Defaults: password `password123`, role 1 (use Role.Admin / Role.Root for admins),
 * quota 0 unless given (credited through the ledger with a system log row).
 */
export async function loginAs(
  server: TestServer,
  opts: { username: string; password?: string; role?: number; quota?: number; group?: string },
): Promise<ConsoleClient & { userId: number }> {
  const password = opts.password ?? 'password123';
  await createAccount(
    server.ctx,
    {
      username: opts.username,
      passwordHash: await hashPassword(password),
      role: opts.role ?? Role.Common,
      group: opts.group,
    },
    { initialQuota: opts.quota ?? 0 },
  );
  const client = new ConsoleClient(server.url);
  const r = await client.login(opts.username, password);
  if (!r.success) throw new Error(`login as ${opts.username} failed: ${r.status} ${r.message}`);
  return client as ConsoleClient & { userId: number };
}
