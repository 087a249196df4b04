import { createHash } from 'node:crypto';
import { ChannelStatus, channelTypeInfo } from '@modelgate/shared';

/** Keys that are JSON documents (Vertex AI's service accounts): one object, or an array of them for many keys. */
const documentKeys = (type: number) => channelTypeInfo(type)?.keyIsDocument === true;

/** What is known about one key of a channel that is not simply enabled. */
export interface KeyState {
  /** ChannelStatus.ManuallyDisabled or ChannelStatus.AutoDisabled. */
  status: number;
  reason: string;
  /** Unix seconds. */
  time: number;
}

export interface ChannelKey {
  key: string;
  /** A short hash that names the key without revealing it (statuses are stored by it). */
  fp: string;
  state?: KeyState;
}

export const keyFingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** The keys a channel's key field holds: one per line, or (document keys) one JSON object or an array of them. */
export function splitKeys(type: number, raw: string): string[] {
  const text = raw.trim();
  if (documentKeys(type) && (text.startsWith('[') || text.startsWith('{'))) {
    try {
      const v = JSON.parse(text);
      if (Array.isArray(v)) return v.map((o) => JSON.stringify(o));
      return [text];
    } catch {
      return [text];
    }
  }
  return text
    .split(/\r?\n/)
    .map((k) => k.trim())
    .filter(Boolean);
}

/** Joins keys back into the stored key field. */
export function joinKeys(type: number, keys: string[]): string {
  if (documentKeys(type) && keys.length > 1) return `[${keys.join(',')}]`;
  return keys.join('\n');
}

/** The stored key_status JSON, tolerant of anything malformed (treated as all keys enabled). */
export function parseKeyStates(raw: string | null | undefined): Record<string, KeyState> {
  if (!raw?.trim()) return {};
  try {
    const v = JSON.parse(raw);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const out: Record<string, KeyState> = {};
    for (const [fp, s] of Object.entries(v as Record<string, Partial<KeyState>>)) {
      const status = Number(s?.status);
      if (status === ChannelStatus.ManuallyDisabled || status === ChannelStatus.AutoDisabled)
        out[fp] = { status, reason: String(s?.reason ?? ''), time: Number(s?.time) || 0 };
    }
    return out;
  } catch {
    return {};
  }
}

/** The statuses of the keys that remain after an edit (null when every key is enabled). */
export function keptStates(raw: string | null, keys: string[]): string | null {
  const known = parseKeyStates(raw);
  const kept: Record<string, KeyState> = {};
  for (const k of keys) {
    const fp = keyFingerprint(k);
    if (known[fp]) kept[fp] = known[fp];
  }
  return Object.keys(kept).length ? JSON.stringify(kept) : null;
}

export function channelKeys(type: number, raw: string, states: string | null | undefined): ChannelKey[] {
  const known = parseKeyStates(states);
  return splitKeys(type, raw).map((key) => {
    const fp = keyFingerprint(key);
    return known[fp] ? { key, fp, state: known[fp] } : { key, fp };
  });
}

export type KeyMode = 'random' | 'polling';

/** Round-robin positions of polling channels, per process. */
const turns = new Map<number, number>();

/**
 * The key one attempt uses: the `preferred` one while it is enabled (a conversation's key), else among the
 * enabled keys at random or in turn as the channel's `multi_key_mode` setting says. Null when every key is
 * disabled.
 */
export function chooseKey(
  channelId: number,
  keys: ChannelKey[],
  mode: KeyMode,
  preferred?: number,
): { key: string; index: number } | null {
  if (keys.length === 1) return keys[0].state ? null : { key: keys[0].key, index: 0 };
  if (preferred !== undefined && keys[preferred] && !keys[preferred].state)
    return { key: keys[preferred].key, index: preferred };
  const enabled: number[] = [];
  for (let i = 0; i < keys.length; i++) if (!keys[i].state) enabled.push(i);
  if (enabled.length === 0) return null;
  let pick: number;
  if (mode === 'polling') {
    const turn = turns.get(channelId) ?? 0;
    turns.set(channelId, turn + 1);
    pick = enabled[turn % enabled.length];
  } else pick = enabled[Math.floor(Math.random() * enabled.length)];
  return { key: keys[pick].key, index: pick };
}
