import { clearStoredUser, getStoredUser } from '../shared/session.ts';

/** The server answered `success: false`, or with an HTTP error; `message` is the server's text when it sent one. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    /** HTTP status; 200 for a `success: false` envelope, 0 when the network failed. */
    readonly status: number,
    /** The server's code for the mistake, when it sent one: the console words it (`errors.code.*`). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

interface Envelope<T> {
  success: boolean;
  message?: string;
  code?: string;
  data?: T;
}

type Params = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, params?: Params): string {
  if (!params) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  if (!s) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${s}`;
}

/** Page navigation outside React (a full load drops every cached query); tests replace `assign`. */
export const browserNavigation = {
  assign: (url: string) => window.location.assign(url),
};

/** A 401 ends the stored session and goes to /login?expired=true (unless already there). */
export function handleUnauthorized() {
  clearStoredUser();
  if (!window.location.pathname.startsWith('/login')) browserNavigation.assign('/login?expired=true');
}

/** Sends one request the way every console call is sent and returns the envelope unchecked (for the few callers that need `message` too). */
export async function requestEnvelope<T>(method: string, path: string, body?: unknown): Promise<Envelope<T>> {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  const user = getStoredUser();
  if (user) headers['New-API-User'] = String(user.id);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch (err) {
    throw new ApiFailure((err as Error).message || 'network error', 0);
  }
  if (res.status === 401) handleUnauthorized();
  let envelope: Envelope<T> | undefined;
  try {
    envelope = (await res.json()) as Envelope<T>;
  } catch {
    envelope = undefined;
  }
  if (!res.ok)
    throw new ApiFailure(
      envelope?.message || res.statusText || `HTTP ${res.status}`,
      res.status,
      envelope?.code,
    );
  if (!envelope || typeof envelope.success !== 'boolean')
    throw new ApiFailure('invalid response from server', res.status);
  return envelope;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const envelope = await requestEnvelope<T>(method, path, body);
  if (!envelope.success) throw new ApiFailure(envelope.message || 'request failed', 200, envelope.code);
  return envelope.data as T;
}

/** The console API client: unwraps `{success, message, data}` to `data`, throws `ApiFailure` otherwise. */
export const api = {
  get: <T>(path: string, params?: Params) => request<T>('GET', withQuery(path, params)),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body ?? {}),
  del: <T>(path: string, params?: Params) => request<T>('DELETE', withQuery(path, params)),
};
