import { ChannelStatus } from '@modelgate/shared';
import { channelKeys } from '../../relay/table-cache/channel-keys.ts';
import type { ChannelRow } from './store.ts';

/** One key as the console sees it: its position, fingerprint and status, never the key. */
export interface KeyView {
  index: number;
  fingerprint: string;
  /** What tells keys apart at a glance: `sk-…a1b2`, or a service account's e-mail. */
  label: string;
  status: number;
  reason: string;
  time: number;
}

/** The first three and last four characters of a long key (as providers' own consoles show them). */
export function keyLabel(key: string): string {
  if (key.startsWith('{')) {
    try {
      const email = (JSON.parse(key) as { client_email?: unknown }).client_email;
      if (typeof email === 'string') return email;
    } catch {}
    return '{…}';
  }
  return key.length >= 16 ? `${key.slice(0, 3)}…${key.slice(-4)}` : '…';
}

export function keyViews(row: Pick<ChannelRow, 'type' | 'key' | 'key_status'>): KeyView[] {
  return channelKeys(Number(row.type), row.key, row.key_status).map((k, index) => ({
    index,
    fingerprint: k.fp,
    label: keyLabel(k.key),
    status: k.state?.status ?? ChannelStatus.Enabled,
    reason: k.state?.reason ?? '',
    time: k.state?.time ?? 0,
  }));
}
