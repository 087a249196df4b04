import { Tooltip } from 'antd';
import type { ReactNode } from 'react';

/**
 * A name cut to `maxWidth` with an ellipsis, whole in a tooltip (with `extra` under it). Works in tables sized
 * to their content, where a column's own `ellipsis` has no width to cut at.
 */
export function EllipsisText({
  text,
  maxWidth,
  extra,
}: {
  text: string;
  maxWidth: number;
  extra?: ReactNode;
}) {
  return (
    <Tooltip
      title={
        <>
          <div style={{ wordBreak: 'break-word' }}>{text}</div>
          {extra}
        </>
      }
    >
      <span
        data-ellipsis
        style={{
          display: 'inline-block',
          maxWidth,
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          whiteSpace: 'nowrap',
          verticalAlign: 'bottom',
        }}
      >
        {text}
      </span>
    </Tooltip>
  );
}
