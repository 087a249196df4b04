import { useQuery } from '@tanstack/react-query';
import { Card, DatePicker, Modal, Progress, Table, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { DurationTag } from '../../shared/ChannelTag.tsx';
import { useSession } from '../../shared/session.ts';
import { channelColumns, serverPages, TaskLogFilterBar, useTaskLogFilters } from '../../shared/TaskLog.tsx';
import { TimeText } from '../../shared/TimeText.tsx';
import { TaskResult } from './TaskResult.tsx';

interface Task {
  id: number;
  submit_time: number;
  finish_time: number;
  progress: string;
  channel_id?: number;
  platform: string;
  action: string;
  task_id: string;
  status: string;
  fail_reason: string;
  /** The upstream's task data as JSON text (song clips, or lyrics). */
  data: string;
  [key: string]: unknown;
}

const STATUS_COLOR: Record<string, string> = {
  SUCCESS: 'green',
  FAILURE: 'red',
  IN_PROGRESS: 'blue',
  SUBMITTED: 'gold',
  QUEUED: 'orange',
  NOT_START: 'default',
  UNKNOWN: 'default',
};

/** The task's data as JSON for the detail modal (the raw text when it is not JSON). */
function detailData(task: Task): unknown {
  if (!task.data) return null;
  try {
    return JSON.parse(task.data);
  } catch {
    return task.data;
  }
}

/** Task log (/task): asynchronous tasks such as Suno, times in seconds, default window from today. */
export default function TasksPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const log = useTaskLogFilters<{
    channel: string;
    taskId: string;
    start: Dayjs;
    end: Dayjs | null;
  }>(() => ({ channel: '', taskId: '', start: dayjs().startOf('day'), end: null }));
  const { form, setForm, filters, page, setPage } = log;
  const [detail, setDetail] = useState<Task | null>(null);

  const list = useQuery({
    queryKey: ['tasks', isAdmin, filters, page],
    queryFn: () =>
      api.get<Task[]>(isAdmin ? '/api/task/' : '/api/task/self', {
        p: page - 1,
        channel_id: isAdmin ? filters.channel : undefined,
        task_id: filters.taskId.trim(),
        start_timestamp: filters.start.unix(),
        end_timestamp: filters.end?.unix(),
      }),
  });
  const rows = list.data ?? [];

  return (
    <Card title={t('task.title')}>
      <TaskLogFilterBar isAdmin={isAdmin} log={log} ns="task">
        <DatePicker
          showTime
          value={form.start}
          allowClear={false}
          onChange={(d) => d && setForm({ ...form, start: d })}
          aria-label={t('common.startTime')}
        />
        <DatePicker
          showTime
          value={form.end}
          onChange={(d) => setForm({ ...form, end: d })}
          aria-label={t('common.endTime')}
          placeholder={t('common.endTime')}
        />
      </TaskLogFilterBar>
      <Table<Task>
        rowKey="id"
        size="middle"
        scroll={{ x: 'max-content' }}
        loading={list.isLoading}
        dataSource={rows}
        pagination={serverPages(page, rows.length, setPage)}
        columns={[
          {
            title: t('task.submitTime'),
            dataIndex: 'submit_time',
            render: (v: number) => <TimeText value={v} />,
          },
          {
            title: t('task.finishTime'),
            dataIndex: 'finish_time',
            render: (v: number) => <TimeText value={v} />,
          },
          {
            title: t('task.progress'),
            dataIndex: 'progress',
            render: (v: string, r) => (
              <Progress
                type="circle"
                size={36}
                percent={Number.parseInt(v, 10) || 0}
                status={r.status === 'FAILURE' ? 'exception' : undefined}
              />
            ),
          },
          {
            title: t('task.duration'),
            key: 'duration',
            render: (_, r) => (
              <DurationTag seconds={r.finish_time && r.submit_time ? r.finish_time - r.submit_time : null} />
            ),
          },
          ...channelColumns(isAdmin, t('task.channel')),
          {
            title: t('task.platform'),
            dataIndex: 'platform',
            render: (v: string) => <Tag color="purple">{v || '-'}</Tag>,
          },
          {
            title: t('task.action'),
            dataIndex: 'action',
            render: (v: string) => (
              <Tag color="blue">{t(`task.actions.${v}`, { defaultValue: v || t('common.unknown') })}</Tag>
            ),
          },
          {
            title: t('task.taskId'),
            dataIndex: 'task_id',
            render: (v: string, r) => (
              // Upstream ids are long UUIDs: cut to the column, whole in the tooltip and the detail.
              <Typography.Link
                onClick={() => setDetail(r)}
                title={`${v} · ${t('task.showDetail')}`}
                ellipsis
                style={{ maxWidth: 160 }}
              >
                {v}
              </Typography.Link>
            ),
          },
          {
            title: t('task.status'),
            dataIndex: 'status',
            render: (v: string) => (
              <Tag color={STATUS_COLOR[v] ?? 'default'}>
                {v ? t(`task.statuses.${v}`, { defaultValue: v }) : t('task.submitting')}
              </Tag>
            ),
          },
          {
            title: t('task.result'),
            key: 'result',
            render: (_, r) => <TaskResult data={r.data} taskId={r.task_id} />,
          },
          {
            title: t('task.failReason'),
            dataIndex: 'fail_reason',
            render: (v: string) =>
              v ? (
                <Typography.Text type="danger" ellipsis={{ tooltip: v }} style={{ maxWidth: 240 }}>
                  {v}
                </Typography.Text>
              ) : (
                '-'
              ),
          },
        ]}
      />
      <Modal
        open={!!detail}
        title={t('task.detail')}
        onCancel={() => setDetail(null)}
        footer={null}
        width={800}
      >
        <pre style={{ maxHeight: 400, overflow: 'auto', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {detail ? JSON.stringify({ ...detail, data: detailData(detail) }, null, 2) : ''}
        </pre>
      </Modal>
    </Card>
  );
}
