import { Button, Popover, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import type { TFunction } from 'i18next';
import { copyText } from '../../shared/copyText.ts';
import { EllipsisText } from '../../shared/EllipsisText.tsx';
import { TimeText } from '../../shared/TimeText.tsx';
import type { LogItem } from './api.ts';
import { isRefund, parseOther } from './billing.ts';
import { logText } from './logText.ts';
import { firstTokenColor, speed, totalTimeColor } from './timing.ts';

const TYPE_COLOR: Record<number, string> = { 1: 'cyan', 2: 'green', 3: 'orange', 4: 'purple', 5: 'red' };
const CHANNEL_COLORS = [
  'blue',
  'geekblue',
  'cyan',
  'green',
  'gold',
  'orange',
  'magenta',
  'purple',
  'volcano',
  'lime',
];

export type LogColumn = ColumnType<LogItem> & { key: string };

/** Every column of the log table; admin-only ones are left out for users. */
export function logColumns(opts: {
  t: TFunction;
  admin: boolean;
  formatQuota: (q: number) => string;
  onUser: (id: number) => void;
}): LogColumn[] {
  const { t, admin, formatQuota, onUser } = opts;
  const cols: Array<LogColumn | false> = [
    {
      key: 'time',
      title: t('log.colTime'),
      dataIndex: 'created_at',
      render: (v: number) => <TimeText value={v} />,
    },
    admin && {
      key: 'channel',
      title: t('log.colChannel'),
      dataIndex: 'channel',
      render: (id: number, r) =>
        id ? (
          <Tooltip title={r.channel_name || undefined}>
            <Tag color={CHANNEL_COLORS[id % CHANNEL_COLORS.length]}>{id}</Tag>
          </Tooltip>
        ) : null,
    },
    admin && {
      key: 'user',
      title: t('log.colUser'),
      dataIndex: 'username',
      render: (name: string, r) =>
        name ? (
          <Button
            type="link"
            size="small"
            style={{ padding: 0 }}
            onClick={(e) => {
              e.stopPropagation();
              onUser(r.user_id);
            }}
          >
            {name}
          </Button>
        ) : null,
    },
    // Column priorities at 1366 px: the token, the group, the timing and the retry chain give way below 1600 px,
    // so the amount and the details stay on screen.
    {
      key: 'token',
      title: t('log.colToken'),
      dataIndex: 'token_name',
      responsive: ['xxl'],
      render: (name: string) =>
        name ? (
          <Tag
            color="default"
            style={{ cursor: 'pointer' }}
            onClick={(e) => {
              e.stopPropagation();
              copyText(name);
            }}
          >
            <EllipsisText text={name} maxWidth={120} />
          </Tag>
        ) : null,
    },
    {
      key: 'group',
      title: t('log.colGroup'),
      dataIndex: 'group',
      responsive: ['xxl'],
      render: (g: string) => (g ? <Tag>{g}</Tag> : null),
    },
    {
      key: 'type',
      title: t('log.colType'),
      dataIndex: 'type',
      render: (type: number, r) =>
        type === 2 && isRefund(parseOther(r.other), r) ? (
          <Tag color="gold">{t('log.refund')}</Tag>
        ) : (
          <Tag color={TYPE_COLOR[type]}>{t(`log.type${type}`, { defaultValue: t('common.unknown') })}</Tag>
        ),
    },
    {
      key: 'model',
      title: t('log.colModel'),
      dataIndex: 'model_name',
      render: (model: string, r) => {
        if (!model) return null;
        const o = parseOther(r.other);
        const tag = (
          <Tag
            color="blue"
            style={{ cursor: 'pointer' }}
            title={t('log.copyModel')}
            onClick={(e) => {
              e.stopPropagation();
              copyText(model);
            }}
          >
            <EllipsisText text={model} maxWidth={150} />
          </Tag>
        );
        if (typeof o.fallback_from === 'string')
          return (
            <Popover content={t('log.fallbackFrom', { model: o.fallback_from, actual: model })}>
              <Space size={2}>
                {tag}
                <Tag color="orange">{t('log.fallback')}</Tag>
              </Space>
            </Popover>
          );
        if (o.response_cache_hit)
          return (
            <Space size={2}>
              {tag}
              <Tag color="green">{t('log.cacheHit')}</Tag>
            </Space>
          );
        if (!o.is_model_mapped) return tag;
        return (
          <Popover content={t('log.mapped', { model, actual: o.upstream_model_name ?? '' })}>
            <Space size={2}>
              {tag}
              <Tag>{o.upstream_model_name}</Tag>
            </Space>
          </Popover>
        );
      },
    },
    {
      key: 'use_time',
      title: t('log.colUseTime'),
      dataIndex: 'use_time',
      responsive: ['xxl'],
      render: (_: number, r) => {
        if (r.type !== 2 && r.type !== 5) return null;
        const o = parseOther(r.other);
        const seconds = typeof o.use_time === 'number' && o.use_time > 0 ? o.use_time / 1000 : r.use_time;
        const first = r.is_stream && r.first_time > 0 ? r.first_time / 1000 : undefined;
        const tps = speed(r.completion_tokens, seconds);
        return (
          <Space size={2} wrap style={{ maxWidth: 150 }}>
            <Tag color={totalTimeColor(seconds)}>{seconds.toFixed(1)} s</Tag>
            {first !== undefined && <Tag color={firstTokenColor(first)}>{first.toFixed(1)} s</Tag>}
            <Tag color={r.is_stream ? 'blue' : 'purple'}>
              {t(r.is_stream ? 'log.stream' : 'log.nonStream')}
            </Tag>
            {tps !== undefined && <Tag>{t('log.speed', { n: tps })}</Tag>}
          </Space>
        );
      },
    },
    {
      key: 'prompt',
      title: t('log.colPrompt'),
      dataIndex: 'prompt_tokens',
      render: (n: number, r) => (r.type === 2 || n ? n : null),
    },
    {
      key: 'completion',
      title: t('log.colCompletion'),
      dataIndex: 'completion_tokens',
      render: (n: number, r) => (r.type === 2 || n ? n : null),
    },
    {
      key: 'quota',
      title: t('log.colQuota'),
      dataIndex: 'quota',
      // A refund gives back what was spent; a top-up adds to the balance: both shown as credits.
      render: (q: number, r) =>
        q < 0 ? (
          <Typography.Text type="success">{t('log.refunded', { amount: formatQuota(-q) })}</Typography.Text>
        ) : !q ? null : r.type === 1 ? (
          <Typography.Text type="success">+{formatQuota(q)}</Typography.Text>
        ) : (
          formatQuota(q)
        ),
    },
    admin && {
      key: 'retry',
      title: t('log.colRetry'),
      dataIndex: 'other',
      responsive: ['xxl'],
      render: (other: string) => {
        const chain = parseOther(other).admin_info?.use_channel ?? [];
        return chain.length > 1 ? chain.join(' → ') : null;
      },
    },
    {
      key: 'details',
      title: t('log.colDetails'),
      dataIndex: 'content',
      render: (_: string, r) => (
        <Typography.Paragraph ellipsis={{ rows: 2 }} style={{ maxWidth: 180, marginBottom: 0 }}>
          {logText(r, parseOther(r.other), t, formatQuota)}
        </Typography.Paragraph>
      ),
    },
  ];
  return cols.filter((c): c is LogColumn => c !== false);
}
