import { ApiError } from '../../infra/envelope.ts';
import { adapterFor } from '../../relay/providers/index.ts';

/** Spec 001 §5 key formats: parts separated by `|` (or `-` for FastGPT). */
const FORMATS: Record<number, { parts: number; sep: string; hint: string }> = {
  15: { parts: 2, sep: '|', hint: 'APIKey|SecretKey' },
  18: { parts: 3, sep: '|', hint: 'APPID|APISecret|APIKey' },
  23: { parts: 3, sep: '|', hint: 'AppId|SecretId|SecretKey' },
  33: { parts: 3, sep: '|', hint: 'Ak|Sk|Region' },
};

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
  if (type === 41) {
    try {
      const sa = JSON.parse(key);
      if (!sa || typeof sa !== 'object' || Array.isArray(sa)) throw new Error();
    } catch {
      throw new ApiError('Vertex AI keys must be the service-account JSON');
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
