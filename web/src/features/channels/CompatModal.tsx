import { CheckCircleOutlined, CloseCircleOutlined, MinusCircleOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, List, Modal, Popconfirm, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { feedback } from '../../shared/feedback.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { formatTime } from '../../shared/TimeText.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { type CompatCell, type CompatRun, compatEstimate, compatLatest, runCompat } from './compatApi.ts';
import type { Row } from './rows.ts';

const ICON = { pass: <CheckCircleOutlined />, fail: <CloseCircleOutlined />, skip: <MinusCircleOutlined /> };
const COLOR = { pass: 'success', fail: 'error', skip: 'default' } as const;

/** A cell's verdict as a tag (only its icon on a phone, where four columns must fit), its reason on hover. */
function Cell({ cell, compact }: { cell?: CompatCell; compact?: boolean }) {
  const { t } = useTranslation();
  if (!cell) return <Typography.Text type="secondary">-</Typography.Text>;
  const label = t(`channel.compat${cell.verdict[0].toUpperCase()}${cell.verdict.slice(1)}`);
  const tag = (
    <Tag
      color={COLOR[cell.verdict]}
      icon={ICON[cell.verdict]}
      aria-label={label}
      style={{ marginInlineEnd: 0 }}
    >
      {compact ? null : label}
    </Tag>
  );
  return cell.reason ? <Tooltip title={cell.reason}>{tag}</Tooltip> : tag;
}

/** The matrix of one run (rows: scripts, columns: client formats) and the reasons of what did not pass. */
function Matrix({ run, scripts, formats }: { run: CompatRun; scripts: string[]; formats: string[] }) {
  const { t } = useTranslation();
  const compact = useIsMobile();
  const problems = scripts.flatMap((s) =>
    formats
      .filter((f) => run.results[s]?.[f] && run.results[s][f].verdict !== 'pass')
      .map((f) => ({ key: `${s}/${f}`, script: s, format: f, cell: run.results[s][f] })),
  );
  return (
    <>
      <Table
        size="small"
        pagination={false}
        rowKey="script"
        scroll={{ x: 'max-content' }}
        dataSource={scripts.map((script) => ({ script }))}
        columns={[
          {
            key: 'script',
            title: t('channel.compatScript'),
            fixed: 'left',
            render: (_, r) => t(`channel.compatScripts.${r.script}`),
          },
          ...formats.map((f) => ({
            key: f,
            title: t(`channel.compat${compact ? 'FormatsShort' : 'Formats'}.${f}`),
            align: 'center' as const,
            render: (_: unknown, r: { script: string }) => (
              <Cell cell={run.results[r.script]?.[f]} compact={compact} />
            ),
          })),
        ]}
      />
      {problems.length > 0 && (
        <List
          size="small"
          header={<Typography.Text strong>{t('channel.compatFailures')}</Typography.Text>}
          dataSource={problems}
          style={{ marginTop: 12, maxHeight: 240, overflowY: 'auto' }}
          renderItem={(p) => (
            <List.Item key={p.key}>
              <Space orientation="vertical" size={0} style={{ minWidth: 0 }}>
                <Space size={6} wrap>
                  <Cell cell={{ verdict: p.cell.verdict, reason: '' }} />
                  <Typography.Text>
                    {t(`channel.compatScripts.${p.script}`)} · {t(`channel.compatFormats.${p.format}`)}
                    {p.cell.code && ` · ${t(`channel.compatCodes.${p.cell.code}`, { defaultValue: '' })}`}
                  </Typography.Text>
                </Space>
                <Typography.Text type="secondary" style={{ wordBreak: 'break-word' }}>
                  {p.cell.reason}
                </Typography.Text>
              </Space>
            </List.Item>
          )}
        />
      )}
    </>
  );
}

/** The compatibility check of one channel: what a run costs, a Run button, and the latest matrix. */
export function CompatModal({ row, onClose }: { row?: Row; onClose: () => void }) {
  const { t } = useTranslation();
  const { format } = useQuotaFormat();
  const isMobile = useIsMobile();
  const queryClient = useQueryClient();
  const id = row?.id ?? 0;
  const estimate = useQuery({
    queryKey: ['channel-compat-estimate', id],
    queryFn: () => compatEstimate(id),
    enabled: !!row,
    retry: false,
  });
  const latest = useQuery({
    queryKey: ['channel-compat', id],
    queryFn: () => compatLatest(id),
    enabled: !!row,
  });
  const run = useMutation({
    mutationFn: () => runCompat(id),
    onSuccess: (r) => {
      queryClient.setQueryData(['channel-compat', id], r);
      feedback.message?.success(t('channel.compatDone', { passed: r.run.passed, failed: r.run.failed }));
    },
  });
  const e = estimate.data;
  const cost = e ? format(e.quota) : '';
  const last = latest.data?.run;
  return (
    <Modal
      open={!!row}
      title={row ? t('channel.compatTitle', { name: row.name }) : ''}
      onCancel={onClose}
      footer={null}
      width={isMobile ? 'calc(100vw - 16px)' : 820}
      style={isMobile ? { top: 8, maxWidth: 'calc(100vw - 16px)' } : undefined}
      destroyOnHidden
    >
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          {t('channel.compatIntro')}
        </Typography.Paragraph>
        {estimate.error ? (
          <Alert
            type="warning"
            showIcon
            title={t('channel.compatEstimateFailed', { message: (estimate.error as Error).message })}
          />
        ) : (
          <Alert
            type="info"
            showIcon
            title={
              e
                ? t(e.perCall ? 'channel.compatEstimatePerCall' : 'channel.compatEstimate', {
                    cost,
                    requests: e.requests,
                    model: e.model,
                  })
                : '…'
            }
          />
        )}
        <Space wrap>
          <Popconfirm
            title={t('channel.compatRunConfirm', { cost })}
            onConfirm={() => run.mutate()}
            disabled={!e || run.isPending}
          >
            <Button type="primary" loading={run.isPending} disabled={!e}>
              {last ? t('channel.compatRunAgain') : t('channel.compatRun')}
            </Button>
          </Popconfirm>
          {run.isPending && <Typography.Text type="secondary">{t('channel.compatRunning')}</Typography.Text>}
        </Space>
        {last ? (
          <>
            <Typography.Text type="secondary" data-testid="compat-last">
              {t('channel.compatLast', {
                time: formatTime(last.created_at),
                trigger: t(
                  last.trigger === 'schedule'
                    ? 'channel.compatTriggerSchedule'
                    : 'channel.compatTriggerManual',
                ),
                model: last.model,
                cost: format(last.charged_quota),
              })}
            </Typography.Text>
            <Matrix run={last} scripts={latest.data?.scripts ?? []} formats={latest.data?.formats ?? []} />
          </>
        ) : (
          latest.isSuccess && <Typography.Text type="secondary">{t('channel.compatNever')}</Typography.Text>
        )}
      </Space>
    </Modal>
  );
}
