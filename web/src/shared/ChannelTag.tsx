import { Tag } from 'antd';
import { copyText } from './copyText.ts';

/** Channel tags cycle through 15 colours by channel id. */
const COLORS = [
  'blue',
  'cyan',
  'geekblue',
  'gold',
  'green',
  'lime',
  'magenta',
  'orange',
  'pink',
  'purple',
  'red',
  'volcano',
  'processing',
  'success',
  'warning',
];

export function channelColor(id: number) {
  return COLORS[Math.abs(Math.trunc(id)) % COLORS.length];
}

/** A channel id as a coloured tag; clicking copies the id. */
export function ChannelTag({ id }: { id: number }) {
  return (
    <Tag color={channelColor(id)} style={{ cursor: 'pointer' }} onClick={() => copyText(String(id))}>
      {id}
    </Tag>
  );
}

/** Time taken in seconds: green, red above 60 s. */
export function DurationTag({ seconds }: { seconds: number | null }) {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return <span>-</span>;
  return <Tag color={seconds > 60 ? 'red' : 'green'}>{`${Number.parseFloat(seconds.toFixed(1))} s`}</Tag>;
}
