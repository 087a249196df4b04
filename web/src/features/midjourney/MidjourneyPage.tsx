import { useQuery } from '@tanstack/react-query';
import { Alert, Card, DatePicker, Image, Modal, Progress, Table, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { BROKEN_IMAGE } from '../../shared/brokenImage.ts';
import { DurationTag } from '../../shared/ChannelTag.tsx';
import { useSession } from '../../shared/session.ts';
import { useStatus } from '../../shared/status.ts';
import { channelColumns, serverPages, TaskLogFilterBar, useTaskLogFilters } from '../../shared/TaskLog.tsx';
import { TimeText } from '../../shared/TimeText.tsx';

interface DrawingTask {
  id: number;
  submit_time: number;
  finish_time: number;
  channel_id?: number;
  action: string;
  mj_id: string;
  code: number;
  status: string;
  progress: string;
  image_url: string;
  prompt: string;
  prompt_en: string;
  fail_reason: string;
}

const ACTIONS = [
  'IMAGINE',
  'UPSCALE',
  'VARIATION',
  'HIGH_VARIATION',
  'LOW_VARIATION',
  'PAN',
  'DESCRIBE',
  'BLEND',
  'UPLOAD',
  'SHORTEN',
  'REROLL',
  'INPAINT',
  'ZOOM',
  'CUSTOM_ZOOM',
  'MODAL',
  'SWAP_FACE',
];
const STATUS_COLOR: Record<string, string> = {
  SUCCESS: 'green',
  FAILURE: 'red',
  IN_PROGRESS: 'blue',
  SUBMITTED: 'gold',
  NOT_START: 'default',
  MODAL: 'purple',
};
const CODE_COLOR: Record<number, string> = { 1: 'green', 21: 'lime', 22: 'orange', 0: 'default' };

/** The last 30 days up to an hour ahead, in milliseconds. */
const defaultRange = (): [Dayjs, Dayjs] => [
  dayjs().subtract(30, 'day').startOf('day'),
  dayjs().add(1, 'hour'),
];

/** Drawing log (/midjourney): filters, 10-row server pages, image preview, prompt modals. */
export default function MidjourneyPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const { status } = useStatus();
  const log = useTaskLogFilters(() => ({
    channel: '',
    taskId: '',
    range: defaultRange(),
  }));
  const { form, setForm, filters, page, setPage } = log;
  const [text, setText] = useState<{ title: string; body: string } | null>(null);

  const list = useQuery({
    queryKey: ['mj', isAdmin, filters, page],
    queryFn: () =>
      api.get<DrawingTask[]>(isAdmin ? '/api/mj/' : '/api/mj/self/', {
        p: page - 1,
        channel_id: isAdmin ? filters.channel : undefined,
        mj_id: filters.taskId.trim(),
        start_timestamp: filters.range[0].valueOf(),
        end_timestamp: filters.range[1].valueOf(),
      }),
  });
  const notifyOn = status.mj_notify_enabled === true || String(status.mj_notify_enabled) === 'true';
  const clickable = (title: string, body: string) =>
    body ? (
      <Typography.Link
        ellipsis
        style={{ maxWidth: 220, display: 'inline-block' }}
        onClick={() => setText({ title, body })}
      >
        {body}
      </Typography.Link>
    ) : (
      '-'
    );

  return (
    <Card title={t('mj.title')}>
      {isAdmin && !notifyOn && (
        <Alert type="info" showIcon title={t('mj.notifyOff')} style={{ marginBottom: 16 }} />
      )}
      <TaskLogFilterBar isAdmin={isAdmin} log={log} ns="mj">
        <DatePicker
          showTime
          value={form.range[0]}
          allowClear={false}
          onChange={(d) => d && setForm({ ...form, range: [d, form.range[1]] })}
          aria-label={t('common.startTime')}
        />
        <DatePicker
          showTime
          value={form.range[1]}
          allowClear={false}
          onChange={(d) => d && setForm({ ...form, range: [form.range[0], d] })}
          aria-label={t('common.endTime')}
        />
      </TaskLogFilterBar>
      <Table<DrawingTask>
        rowKey="id"
        size="middle"
        scroll={{ x: 'max-content' }}
        loading={list.isLoading}
        dataSource={list.data ?? []}
        pagination={serverPages(page, list.data?.length ?? 0, setPage)}
        columns={[
          {
            title: t('mj.submitTime'),
            dataIndex: 'submit_time',
            render: (v: number) => <TimeText value={v} />,
          },
          {
            title: t('mj.duration'),
            key: 'duration',
            render: (_, r) => (
              <DurationTag
                seconds={r.finish_time && r.submit_time ? (r.finish_time - r.submit_time) / 1000 : null}
              />
            ),
          },
          ...channelColumns(isAdmin, t('mj.channel')),
          {
            title: t('mj.type'),
            dataIndex: 'action',
            render: (v: string) => (
              <Tag color="blue">{ACTIONS.includes(v) ? t(`mj.action.${v}`) : t('common.unknown')}</Tag>
            ),
          },
          {
            title: t('mj.taskId'),
            dataIndex: 'mj_id',
            // A submit the upstream refused has no task id.
            render: (v: string) => (v ? <Typography.Text copyable>{v}</Typography.Text> : '-'),
          },
          {
            title: t('mj.code'),
            dataIndex: 'code',
            render: (v: number) => (
              <Tag color={CODE_COLOR[v] ?? 'red'}>
                {v in CODE_COLOR ? t(`mj.codes.${v}`) : `${t('mj.codes.other')} (${v})`}
              </Tag>
            ),
          },
          {
            title: t('mj.status'),
            dataIndex: 'status',
            render: (v: string) => (
              <Tag color={STATUS_COLOR[v] ?? 'default'}>
                {v ? t(`mj.statuses.${v}`, { defaultValue: v }) : '-'}
              </Tag>
            ),
          },
          {
            title: t('mj.progress'),
            dataIndex: 'progress',
            render: (v: string, r) => (
              <Progress
                percent={Number.parseInt(v, 10) || 0}
                size="small"
                status={r.status === 'FAILURE' ? 'exception' : undefined}
                style={{ width: 120 }}
              />
            ),
          },
          {
            title: t('mj.image'),
            dataIndex: 'image_url',
            render: (v: string) =>
              v ? (
                <Image
                  src={v}
                  width={48}
                  height={48}
                  style={{ objectFit: 'cover' }}
                  alt={t('mj.image')}
                  fallback={BROKEN_IMAGE}
                />
              ) : (
                t('common.none')
              ),
          },
          { title: t('mj.prompt'), dataIndex: 'prompt', render: (v: string) => clickable(t('mj.prompt'), v) },
          {
            title: t('mj.promptEn'),
            dataIndex: 'prompt_en',
            render: (v: string) => clickable(t('mj.promptEn'), v),
          },
          {
            title: t('mj.failReason'),
            dataIndex: 'fail_reason',
            render: (v: string) => clickable(t('mj.failReason'), v),
          },
        ]}
      />
      <Modal open={!!text} title={text?.title} onCancel={() => setText(null)} footer={null} width={800}>
        <div style={{ height: 400, overflowY: 'auto', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {text?.body}
        </div>
      </Modal>
    </Card>
  );
}
