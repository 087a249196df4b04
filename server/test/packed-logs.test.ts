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
    // A thousand rows of about 250 bytes fill several chunks.
    expect(taken.parts[0].chunks.length).toBeGreaterThan(1);
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
    packer.add(row(1, { username: 'before', model_name: 'claude' }));
    packer.add(row(2));
    const failed = packer.take();
    // Texts met in another order after the take: each part keeps its own table.
    packer.add(row(3, { username: 'after' }));
    packer.add(row(4, { username: 'before' }));
    packer.putBack(failed);
    expect(packer.size).toBe(4);
    expect(unpacked(packer.take())).toEqual([
      row(1, { username: 'before', model_name: 'claude' }),
      row(2),
      row(3, { username: 'after' }),
      row(4, { username: 'before' }),
    ]);
  });

  it('writes texts that repeat once a flush, so a row of Chinese prices and names is ASCII', () => {
    const packer = new LogPacker();
    const rows = Array.from({ length: 50 }, (_, i) =>
      row(i, { username: `用户${i % 3}`, token_name: '我的令牌', group: '默认', model_name: '通义千问' }),
    );
    for (const r of rows) packer.add(r);
    const taken = packer.take();
    const bytes = Buffer.concat(taken.parts.flatMap((p) => p.chunks));
    const other = Buffer.from(rows[0].other as string);
    // Only each row's `other` (with its emoji) is not ASCII.
    const nonAscii = bytes.filter((b) => b > 0x7f).length;
    expect(nonAscii).toBe(rows.length * other.filter((b) => b > 0x7f).length);
    expect([...taken.parts[0].texts].sort()).toEqual(
      [
        '模型倍率 1.55，补全倍率 1，分组倍率 1',
        '用户0',
        '用户1',
        '用户2',
        '我的令牌',
        '默认',
        '通义千问',
      ].sort(),
    );
    expect(unpacked(taken)).toEqual(rows);
  });

  it('keeps an `other` that is not JSON, or none, as it was', () => {
    const packer = new LogPacker();
    const odd = [
      row(1, { other: 'a raw\nline\n:42:[1]\n' }),
      row(2, { other: '' }),
      row(3, { other: null as unknown as string }),
      row(4, { other: '\u2028 12:{' }),
    ];
    for (const r of odd) packer.add(r);
    expect(unpacked(packer.take())).toEqual(odd);
  });

  it('survive the copy to another thread', () => {
    const packer = new LogPacker();
    for (let i = 0; i < 300; i++) packer.add(row(i));
    const copied = structuredClone(packer.take());
    expect(unpacked(copied)).toEqual(Array.from({ length: 300 }, (_, i) => row(i)));
  });
});
