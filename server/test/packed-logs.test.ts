import { describe, expect, it } from 'vitest';
import { LOG_COLUMNS, type LogRow } from '../src/ledger/log-insert.ts';
import { LogPacker, type PackedLogs, unpackLogs } from '../src/ledger/packed-logs.ts';

/** The packed rows as objects again, to compare with what went in. */
const unpacked = (packed: PackedLogs) =>
  unpackLogs(packed).map((values) => Object.fromEntries(LOG_COLUMNS.map((c, i) => [c, values[i]])));

const row = (i: number, over: Partial<LogRow> = {}): LogRow => ({
  user_id: i,
  created_at: 1_795_900_000 + i,
  type: 2,
  content: '模型倍率 1.55，补全倍率 1，分组倍率 1',
  username: `user-${i}`,
  token_name: 'tok "quoted" \\ back',
  token_id: 9_007_199_254_740_991 - i,
  model_name: 'gpt-4o',
  quota: 1234 * i,
  cost: 0,
  prompt_tokens: 10,
  completion_tokens: 20,
  use_time: 1,
  first_time: 350,
  is_stream: i % 2,
  channel_id: 3,
  group: 'default',
  ip: '2001:db8::1',
  request_id: `20261129070509${i.toString(16).padStart(8, '0')}`,
  other: JSON.stringify({ admin_info: { use_channel: ['3'] }, note: 'line\nbreak 😀' }),
  ...over,
});

describe('packed usage log rows', () => {
  it('give back every row as it was added, in order, whatever its text', () => {
    const packer = new LogPacker();
    const rows = Array.from({ length: 1000 }, (_, i) => row(i));
    // JSON.stringify escapes a lone surrogate, so even that comes back as it went in.
    rows.push(row(1000, { content: '\u2028\u0000\ud83d' }));
    for (const r of rows) packer.add(r);
    expect(packer.size).toBe(rows.length);
    const taken = packer.take();
    // A thousand rows of about 400 bytes fill several chunks.
    expect(taken.chunks.length).toBeGreaterThan(1);
    expect(taken.count).toBe(rows.length);
    expect(unpacked(taken)).toEqual(rows);
    expect(packer.size).toBe(0);
    expect(unpacked(packer.take())).toEqual([]);
  });

  it('gives a column left out back as null, which the database stores for it as before', () => {
    const packer = new LogPacker();
    packer.add(row(1, { content: undefined }));
    expect(unpacked(packer.take())[0]).toEqual({ ...row(1), content: null });
  });

  it('keeps a row larger than a chunk whole', () => {
    const packer = new LogPacker();
    const big = row(1, { other: JSON.stringify({ detail: '文'.repeat(100_000) }) });
    packer.add(row(0));
    packer.add(big);
    packer.add(row(2));
    expect(unpacked(packer.take())).toEqual([row(0), big, row(2)]);
  });

  it('puts rows back ahead of those added since, after a write that failed', () => {
    const packer = new LogPacker();
    packer.add(row(1));
    packer.add(row(2));
    const failed = packer.take();
    packer.add(row(3));
    packer.putBack(failed);
    expect(packer.size).toBe(3);
    expect(unpacked(packer.take()).map((r) => r.user_id)).toEqual([1, 2, 3]);
  });

  it('survive the copy to another thread', () => {
    const packer = new LogPacker();
    for (let i = 0; i < 300; i++) packer.add(row(i));
    const copied = structuredClone(packer.take());
    expect(unpacked(copied)).toEqual(Array.from({ length: 300 }, (_, i) => row(i)));
  });
});
