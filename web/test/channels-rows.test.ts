import { describe, expect, it } from 'vitest';
import type { Channel } from '../src/features/channels/api.ts';
import { responseColor, statusInfo, toRows } from '../src/features/channels/rows.ts';

const ch = (id: number, tag: string, extra: Partial<Channel> = {}): Channel =>
  ({
    id,
    tag,
    name: `c${id}`,
    group: 'default',
    models: 'm',
    status: 1,
    used_quota: 10,
    balance: 1,
    other_info: '',
    ...extra,
  }) as Channel;

describe('channel rows', () => {
  it('gathers tagged channels under one row per tag and leaves untagged ones alone', () => {
    const rows = toRows([ch(1, 'a'), ch(2, ''), ch(3, 'a', { group: 'vip', status: 2 }), ch(4, 'b')], true);
    expect(rows.map((r) => r.rowKey)).toEqual(['tag:a', '2', 'tag:b']);
    const a = rows[0];
    expect(a.isTag).toBe(true);
    expect(a.children?.map((c) => c.id)).toEqual([1, 3]);
    expect(a.group).toBe('default,vip');
    expect(a.used_quota).toBe(20);
  });

  it('keeps the flat list outside tag mode', () => {
    expect(toRows([ch(1, 'a'), ch(2, 'a')], false).map((r) => r.rowKey)).toEqual(['1', '2']);
  });

  it('colours response times as spec 001 §4 says', () => {
    expect(responseColor(0)).toBe('default');
    expect(responseColor(1000)).toBe('green');
    expect(responseColor(1001)).toBe('lime');
    expect(responseColor(3000)).toBe('lime');
    expect(responseColor(5000)).toBe('gold');
    expect(responseColor(5001)).toBe('red');
  });

  it('reads the auto-disable reason and time, and survives bad JSON', () => {
    expect(statusInfo({ other_info: '{"status_reason":"401","status_time":1700000000}' })).toEqual({
      reason: '401',
      time: 1700000000,
    });
    expect(statusInfo({ other_info: '{oops' })).toEqual({});
  });
});
