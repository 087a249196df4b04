import { Button, Input, Space, type TablePaginationConfig } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChannelTag } from './ChannelTag.tsx';

/**
 * What the task logs (drawings at /midjourney, other tasks at /task) share: their filters (a channel for
 * admins, a task id, a time window the page adds), the server's fixed pages of 10 rows, the admins' channel
 * column.
 */

interface TaskFilters {
  channel: string;
  taskId: string;
}

/** The filters being edited (`form`) and the ones applied (`filters`, with `page`); `search` applies them on page 1. */
export function useTaskLogFilters<F extends TaskFilters>(initial: () => F) {
  const [form, setForm] = useState(initial);
  const [filters, setFilters] = useState(form);
  const [page, setPage] = useState(1);
  const search = () => {
    setFilters(form);
    setPage(1);
  };
  return { form, setForm, filters, page, setPage, search };
}

/**
 * The filter bar of `log`: channel id (admins only, digits only) and task id, with the placeholders of the
 * page's strings (`ns`), the page's time fields, Search.
 */
export function TaskLogFilterBar<F extends TaskFilters>({
  isAdmin,
  log: { form, setForm, search },
  ns,
  children,
}: {
  isAdmin: boolean;
  log: { form: F; setForm: (next: F) => void; search: () => void };
  ns: 'mj' | 'task';
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Space wrap style={{ marginBottom: 16 }}>
      {isAdmin && (
        <Input
          placeholder={t(`${ns}.channelId`)}
          value={form.channel}
          onChange={(e) => setForm({ ...form, channel: e.target.value.replace(/\D/g, '') })}
          style={{ width: 120 }}
        />
      )}
      <Input
        placeholder={t(`${ns}.taskId`)}
        value={form.taskId}
        onChange={(e) => setForm({ ...form, taskId: e.target.value })}
        style={{ width: 200 }}
      />
      {children}
      <Button type="primary" onClick={search}>
        {t('common.search')}
      </Button>
    </Space>
  );
}

/** The server answers 10 rows per page without a total. */
const SERVER_PAGE = 10;

/** Paging over the server's 10-row pages: a full page offers one more. */
export function serverPages(
  page: number,
  rows: number,
  onChange: (page: number) => void,
): TablePaginationConfig {
  return {
    current: page,
    pageSize: SERVER_PAGE,
    total: (page - 1) * SERVER_PAGE + rows + (rows >= SERVER_PAGE ? 1 : 0),
    showSizeChanger: false,
    onChange,
  };
}

/** The channel column, for admins only (none for others). */
export const channelColumns = (isAdmin: boolean, title: string) =>
  isAdmin ? [{ title, dataIndex: 'channel_id', render: (v: number) => <ChannelTag id={v} /> }] : [];
