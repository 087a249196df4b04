import dayjs from 'dayjs';

/** Seconds or milliseconds since the epoch -> `YYYY-MM-DD HH:mm:ss` (numbers below 1e12 are seconds). */
export function formatTime(ts: number | string | null | undefined, format = 'YYYY-MM-DD HH:mm:ss'): string {
  const n = Number(ts);
  if (!ts || !Number.isFinite(n) || n <= 0) return '-';
  return dayjs(n < 1e12 ? n * 1000 : n).format(format);
}

export function TimeText({ value, format }: { value: number | string | null | undefined; format?: string }) {
  return <span style={{ whiteSpace: 'nowrap' }}>{formatTime(value, format)}</span>;
}
