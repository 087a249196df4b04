import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../../context.ts';
import { isTerminal, type MjTask } from './protocol.ts';
import type { TaskRow } from './store.ts';

/** The signature that lets `/mj/image/<id>` serve an image without a key: only links the gateway made work. */
export function imageSignature(ctx: AppContext, mjId: string): string {
  return createHmac('sha256', ctx.config.cryptoSecret)
    .update(`mj-image:${mjId}`)
    .digest('base64url')
    .slice(0, 32);
}

export function validImageSignature(ctx: AppContext, mjId: string, sig: unknown): boolean {
  if (typeof sig !== 'string') return false;
  const want = Buffer.from(imageSignature(ctx, mjId));
  const got = Buffer.from(sig);
  return got.length === want.length && timingSafeEqual(got, want);
}

/**
 * The image URL a reader gets. With MjForwardUrlEnabled the upstream's URL (often a Discord CDN address that
 * many readers cannot reach) is replaced by the gateway's signed image proxy: a path for the console on the same
 * origin, and for API clients the ServerAddress in front of it (the upstream's URL when none is set). While the
 * task runs the preview changes, so the link changes with it.
 */
export function imageUrlOf(ctx: AppContext, row: TaskRow, audience: 'console' | 'client'): string {
  const raw = row.image_url ?? '';
  if (!raw || !row.mj_id || !ctx.options.bool('MjForwardUrlEnabled')) return raw;
  let path = `/mj/image/${encodeURIComponent(row.mj_id)}?sig=${imageSignature(ctx, row.mj_id)}`;
  if (!isTerminal(row.status)) path += `&v=${row.updated_at}`;
  if (audience === 'console') return path;
  const base = ctx.options.get('ServerAddress').trim().replace(/\/+$/, '');
  return base ? `${base}${path}` : raw;
}

function parsed<T>(raw: string | null, fallback: T): T {
  if (!raw) return fallback;
  try {
    const v = JSON.parse(raw);
    return v && typeof v === 'object' ? (v as T) : fallback;
  } catch {
    return fallback;
  }
}

/** A task row as the proxy's Task object, the shape fetch, list-by-condition and notify forwarding answer in. */
export function taskView(ctx: AppContext, row: TaskRow): MjTask {
  return {
    id: row.mj_id,
    action: row.action,
    prompt: row.prompt ?? '',
    promptEn: row.prompt_en ?? '',
    description: row.description ?? '',
    state: row.state ?? '',
    submitTime: row.submit_time,
    startTime: row.start_time,
    finishTime: row.finish_time,
    imageUrl: imageUrlOf(ctx, row, 'client'),
    videoUrl: row.video_url ?? '',
    status: row.status,
    progress: row.progress,
    failReason: row.fail_reason ?? '',
    buttons: parsed<unknown[]>(row.buttons, []),
    properties: parsed<Record<string, unknown>>(row.properties, {}),
  };
}
