import { ApiError } from '../../infra/envelope.ts';
import { adapterFor } from '../../relay/providers/index.ts';

/** Spec 001 §5 key formats of types whose host has no key check of its own: parts separated by `|`. */
const FORMATS: Record<number, { parts: number; sep: string; hint: string }> = {
  18: { parts: 3, sep: '|', hint: 'APPID|APISecret|APIKey' },
};

/** Refuses a key whose shape the channel type cannot use; the host's own check (providers/) comes first. */
export function checkKeyFormat(type: number, key: string): void {
  const check = adapterFor(type)?.checkKey;
  if (check) {
    try {
      check(key);
    } catch (err) {
      throw new ApiError((err as Error).message);
    }
    return;
  }
  const f = FORMATS[type];
  if (f && key.split(f.sep).filter((p) => p.trim()).length !== f.parts) {
    throw new ApiError(`keys for this channel type look like ${f.hint}`);
  }
}

/**
 * One key per line makes one channel per line (batch mode, or a multi-line key). A Vertex AI key is a
 * multi-line JSON document, so it is only split in batch mode, one JSON document per line.
 */
export function splitBatchKeys(type: number, key: string, batch: boolean): string[] {
  if (type === 41 && !batch) return [key];
  const lines = key
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.length ? lines : [key];
}
