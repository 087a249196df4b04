import { ChannelStatus } from '@modelgate/shared';
import { channelKeys } from '../../relay/cache/channel-keys.ts';
import type { ChannelRow } from './store.ts';

/** One key as the console sees it: its position, fingerprint and status, never the key. */
export interface KeyView {
  index: number;
  fingerprint: string;
  status: number;
  reason: string;
  time: number;
}

export function keyViews(row: Pick<ChannelRow, 'type' | 'key' | 'key_status'>): KeyView[] {
  return channelKeys(Number(row.type), row.key, row.key_status).map((k, index) => ({
    index,
    fingerprint: k.fp,
    status: k.state?.status ?? ChannelStatus.Enabled,
    reason: k.state?.reason ?? '',
    time: k.state?.time ?? 0,
  }));
}
