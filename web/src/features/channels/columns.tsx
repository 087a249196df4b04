import { channelTypeInfo } from '@modelgate/shared';
import { Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import dayjs from 'dayjs';
import type { TFunction } from 'i18next';
import { copyText } from '../../shared/copyText.ts';
import { EllipsisText } from '../../shared/EllipsisText.tsx';
import { formatTime } from '../../shared/TimeText.tsx';
import { InlineNumber } from './InlineNumber.tsx';
import { type Row, responseColor, STATUS_COLOR, splitList, statusInfo } from './rows.ts';

export interface ColumnHandlers {
  format: (quota: number) => string;
  onBalance: (row: Row) => void;
  onPriority: (row: Row, value: number) => void;
  onWeight: (row: Row, value: number) => void;
  actions: (row: Row) => React.ReactNode;
  /** Keeps the actions in view on wide screens. */
  fixedActions: boolean;
}

export const COLUMN_KEYS = [
  'id',
  'name',
  'group',
  'type',
  'status',
  'response',
  'balance',
  'priority',
  'weight',
] as const;

/** An open or half-open circuit breaker beside the status: "circuit open until hh:mm:ss". */
function circuitTag(t: TFunction, c: NonNullable<Row['circuit']>) {
  const open = c.state === 'open';
  return (
    <Tooltip title={t(open ? 'channel.circuitOpenTip' : 'channel.circuitHalfOpenTip')}>
      <Tag color={open ? 'orange' : 'gold'} data-testid="circuit-tag">
        {open
          ? t('channel.circuitOpen', { time: dayjs(c.until * 1000).format('HH:mm:ss') })
          : t('channel.circuitHalfOpen')}
      </Tag>
    </Tooltip>
  );
}

/** "2/3 keys": how many of a multi-key channel's keys are enabled, orange when some are not. */
function KeyCountTag({ t, row }: { t: TFunction; row: Row }) {
  const total = row.key_count ?? 0;
  const enabled = row.keys_enabled ?? total;
  return (
    <Tooltip title={t('channel.keyCountTip', { enabled, total })}>
      <Tag color={enabled < total ? 'orange' : 'blue'} data-testid={`key-count-${row.id}`}>
        {t('channel.keyCount', { enabled, total })}
      </Tag>
    </Tooltip>
  );
}

export function channelColumns(t: TFunction, h: ColumnHandlers): ColumnsType<Row> {
  return [
    {
      key: 'id',
      title: t('channel.colId'),
      dataIndex: 'id',
      width: 60,
      render: (id: number, r) => (r.isTag ? null : id),
    },
    {
      key: 'name',
      title: t('channel.colName'),
      dataIndex: 'name',
      render: (name: string, r) =>
        r.isTag ? (
          <Typography.Text strong>{`${name} (${r.children?.length ?? 0})`}</Typography.Text>
        ) : (
          <Space size={4} wrap={false}>
            <EllipsisText text={name} maxWidth={180} extra={r.base_url || undefined} />
            {(r.key_count ?? 1) > 1 && <KeyCountTag t={t} row={r} />}
          </Space>
        ),
    },
    {
      key: 'group',
      title: t('channel.colGroup'),
      dataIndex: 'group',
      render: (g: string) => (
        <Space size={[4, 4]} wrap style={{ maxWidth: 150 }}>
          {splitList(g)
            .sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : 0))
            .map((name) => (
              <Tag key={name} color="blue" style={{ cursor: 'copy' }} onClick={() => copyText(name)}>
                {name}
              </Tag>
            ))}
        </Space>
      ),
    },
    {
      key: 'type',
      title: t('channel.colType'),
      dataIndex: 'type',
      render: (type: number, r) =>
        r.isTag ? (
          <Tag color="purple">{t('channel.tagAggregate')}</Tag>
        ) : (
          <Tag>{channelTypeInfo(type)?.name ?? `#${type}`}</Tag>
        ),
    },
    {
      key: 'status',
      title: t('channel.colStatus'),
      dataIndex: 'status',
      render: (s: number, r) => {
        const tag = (
          <Tag color={STATUS_COLOR[s] ?? 'default'}>
            {t(`channel.status${s}`, { defaultValue: t('common.unknown') })}
          </Tag>
        );
        const info = statusInfo(r);
        if (r.circuit && !r.isTag && s === 1)
          return (
            <Space size={[4, 4]} wrap>
              {tag}
              {circuitTag(t, r.circuit)}
            </Space>
          );
        if (r.isTag || s === 1 || (!info.reason && !info.time)) return tag;
        return (
          <Tooltip
            title={
              <>
                {info.reason && <div>{t('channel.statusReason', { reason: info.reason })}</div>}
                {info.time && <div>{t('channel.statusTime', { time: formatTime(info.time) })}</div>}
              </>
            }
          >
            {tag}
          </Tooltip>
        );
      },
    },
    {
      key: 'response',
      title: t('channel.colResponse'),
      dataIndex: 'response_time',
      // Column priorities at 1366 px: the last test's time gives way below 1600 px (the test shows it again).
      responsive: ['xxl'],
      render: (ms: number, r) =>
        r.isTag ? null : (
          <Tooltip title={r.test_time ? formatTime(r.test_time) : undefined}>
            <Tag color={responseColor(ms)}>
              {ms
                ? t('channel.seconds', { value: (ms / 1000).toFixed(ms < 100 ? 3 : 2) })
                : t('channel.untested')}
            </Tag>
          </Tooltip>
        ),
    },
    {
      key: 'balance',
      title: t('channel.colBalance'),
      render: (_, r) => (
        <Space size={4} wrap>
          <Tooltip title={t('channel.used', { value: h.format(r.used_quota) })}>
            <Tag color="default">{h.format(r.used_quota)}</Tag>
          </Tooltip>
          {!r.isTag && (
            <Tooltip
              title={
                r.balance_updated_time
                  ? `${t('channel.clickToRefresh')} · ${formatTime(r.balance_updated_time)}`
                  : t('channel.clickToRefresh')
              }
            >
              <Tag
                color="cyan"
                style={{ cursor: 'pointer' }}
                onClick={() => h.onBalance(r)}
                data-testid={`balance-${r.id}`}
              >
                {r.balance_updated_time ? `$${r.balance.toFixed(2)}` : t('channel.balanceNone')}
              </Tag>
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      key: 'priority',
      title: t('channel.colPriority'),
      dataIndex: 'priority',
      render: (v: number, r) => (
        <InlineNumber
          value={v}
          min={-999}
          ariaLabel={`${t('channel.colPriority')} ${r.name}`}
          onSave={(n) => h.onPriority(r, n)}
        />
      ),
    },
    {
      key: 'weight',
      title: t('channel.colWeight'),
      dataIndex: 'weight',
      render: (v: number, r) => (
        <InlineNumber
          value={v}
          min={0}
          ariaLabel={`${t('channel.colWeight')} ${r.name}`}
          onSave={(n) => h.onWeight(r, n)}
        />
      ),
    },
    {
      key: 'actions',
      title: t('common.actions'),
      fixed: h.fixedActions ? 'right' : undefined,
      render: (_, r) => h.actions(r),
    },
  ] as ColumnsType<Row>;
}
