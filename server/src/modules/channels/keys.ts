import { channelTypeInfo } from '@modelgate/shared';
import { ApiError } from '../../infra/envelope.ts';
import { adapterFor } from '../../relay/providers/index.ts';

/** Refuses a key whose shape the channel type cannot use (each host's own check, relay/providers/). */
export function checkKeyFormat(type: number, key: string): void {
  const check = adapterFor(type)?.checkKey;
  if (check) {
    try {
      check(key);
    } catch (err) {
      throw new ApiError((err as Error).message);
    }
  }
}

/**
 * One key per line makes one channel per line (batch mode, or a multi-line key). A Vertex AI key is a
 * multi-line JSON document, so it is only split in batch mode, one JSON document per line.
 */
export function splitBatchKeys(type: number, key: string, batch: boolean): string[] {
  if (channelTypeInfo(type)?.keyIsDocument && !batch) return [key];
  const lines = key
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.length ? lines : [key];
}
