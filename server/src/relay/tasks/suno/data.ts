/** The most a task's upstream data may take in the `data` column (MySQL's TEXT holds 64 KiB). */
export const MAX_DATA_BYTES = 60_000;

/** The parts of a song clip (or lyrics) a reader needs, when the whole report is too large to keep. */
const CLIP_KEYS = [
  'id',
  'status',
  'title',
  'text',
  'audio_url',
  'video_url',
  'image_url',
  'image_large_url',
  'model_name',
  'major_model_version',
  'created_at',
];
const METADATA_KEYS = ['tags', 'prompt', 'type', 'duration', 'error_type', 'error_message'];

function pick(o: unknown, keys: string[]): unknown {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return o;
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (src[k] !== undefined) out[k] = src[k];
  return out;
}

const slimClip = (clip: unknown): unknown => {
  const out = pick(clip, CLIP_KEYS);
  const meta = (clip as { metadata?: unknown } | null)?.metadata;
  if (out && typeof out === 'object' && meta)
    (out as Record<string, unknown>).metadata = pick(meta, METADATA_KEYS);
  return out;
};

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * The upstream's task data as it is stored: verbatim JSON when it fits, else each clip cut to what a reader
 * needs (audio, video, cover, title, lyrics, tags), else null (not stored; the last stored data stays).
 */
export function slimData(data: unknown): string | null {
  const whole = JSON.stringify(data);
  if (whole === undefined) return null;
  if (bytes(whole) <= MAX_DATA_BYTES) return whole;
  const slim = JSON.stringify(Array.isArray(data) ? data.map(slimClip) : slimClip(data));
  return bytes(slim) <= MAX_DATA_BYTES ? slim : null;
}
