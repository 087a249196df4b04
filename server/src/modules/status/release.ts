import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { adminUrlPolicy, guardedFetch } from '../../infra/ssrf.ts';
import { VERSION } from './version.ts';

export interface ReleaseCheck {
  current: string;
  latest: string;
  /** The release notes (markdown) as the release page has them. */
  notes: string;
  url: string;
  published_at: string;
  newer: boolean;
}

/** "v1.2.10" -> [1, 2, 10]; anything that is not a number counts as 0. */
const parts = (v: string) =>
  v
    .replace(/^v/i, '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((p) => Number.parseInt(p, 10) || 0);

export function isNewer(latest: string, current: string): boolean {
  const a = parts(latest);
  const b = parts(current);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
}

/**
 * Reads the latest public release (a GitHub-style `releases/latest` document: tag_name, body, html_url) from
 * VERSION_CHECK_URL through the SSRF guard. The URL is the operator's, so the administrator's policy applies.
 */
export async function checkRelease(ctx: AppContext): Promise<ReleaseCheck> {
  const url = ctx.config.versionCheckUrl;
  if (!url) throw new ApiError('the version check is off: VERSION_CHECK_URL is not set', 409);
  let doc: Record<string, unknown>;
  try {
    const res = await guardedFetch(url, {
      policy: adminUrlPolicy(ctx.options),
      timeoutMs: 10_000,
      headers: { accept: 'application/vnd.github+json, application/json', 'user-agent': 'modelgate' },
    });
    if (!res.ok) throw new Error(`the release server answered HTTP ${res.status}`);
    doc = (await res.json()) as Record<string, unknown>;
  } catch (err) {
    throw new ApiError(`could not reach the release server: ${(err as Error).message}`, 502);
  }
  const text = (k: string) => (typeof doc?.[k] === 'string' ? (doc[k] as string) : '');
  const latest = text('tag_name');
  if (!latest) throw new ApiError('the release server answered without a tag_name', 502);
  return {
    current: VERSION,
    latest,
    notes: text('body'),
    url: text('html_url'),
    published_at: text('published_at'),
    newer: isNewer(latest, VERSION),
  };
}
