import type { Channel } from './api.ts';

/** A table row: a channel, or (tag mode) a tag with its channels as children. */
export type Row = Channel & { rowKey: string; isTag?: boolean; children?: Row[] };

const asRow = (c: Channel): Row => ({ ...c, rowKey: String(c.id) });

/** In tag mode, tagged channels are gathered under one parent row per tag; untagged ones stay as they are. */
export function toRows(channels: Channel[], tagMode: boolean): Row[] {
  if (!tagMode) return channels.map(asRow);
  const out: Row[] = [];
  const byTag = new Map<string, Row>();
  for (const c of channels) {
    if (!c.tag) {
      out.push(asRow(c));
      continue;
    }
    let parent = byTag.get(c.tag);
    if (!parent) {
      parent = { ...c, rowKey: `tag:${c.tag}`, isTag: true, name: c.tag, children: [] };
      byTag.set(c.tag, parent);
      out.push(parent);
    }
    parent.children?.push(asRow(c));
  }
  for (const parent of byTag.values()) {
    const kids = parent.children ?? [];
    parent.group = [...new Set(kids.flatMap((k) => k.group.split(',')).filter(Boolean))].join(',');
    parent.models = [...new Set(kids.flatMap((k) => k.models.split(',')).filter(Boolean))].join(',');
    parent.status = kids.every((k) => k.status === 1) ? 1 : kids.every((k) => k.status !== 1) ? 2 : 1;
    parent.used_quota = kids.reduce((s, k) => s + k.used_quota, 0);
    parent.balance = kids.reduce((s, k) => s + k.balance, 0);
    parent.response_time = 0;
  }
  return out;
}

/** Response time colours: green up to 1 s, lime up to 3 s, yellow up to 5 s, red above; untested when 0. */
export function responseColor(ms: number): string {
  if (!ms) return 'default';
  if (ms <= 1000) return 'green';
  if (ms <= 3000) return 'lime';
  if (ms <= 5000) return 'gold';
  return 'red';
}

export function statusInfo(c: Pick<Channel, 'other_info'>): { reason?: string; time?: number } {
  try {
    const v = JSON.parse(c.other_info || '{}');
    return { reason: v.status_reason || undefined, time: Number(v.status_time) || undefined };
  } catch {
    return {};
  }
}

export const splitList = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** Tag colours of channel (and key) statuses: enabled, disabled, auto-disabled. */
export const STATUS_COLOR: Record<number, string> = { 1: 'green', 2: 'red', 3: 'orange' };
