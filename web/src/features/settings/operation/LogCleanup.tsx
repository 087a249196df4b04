import { useMutation } from '@tanstack/react-query';
import { Button, DatePicker, Form, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/client.ts';
import { feedback, showError } from '../../../shared/feedback.tsx';

/** Deletes usage logs older than a chosen time (default one month back), after a confirmation. */
export function LogCleanup() {
  const { t } = useTranslation();
  const [time, setTime] = useState<Dayjs | null>(() => dayjs().subtract(1, 'month'));
  const cleanup = useMutation({
    meta: { silent: true },
    mutationFn: (ts: number) => api.del<number>('/api/log/', { target_timestamp: ts }),
    onSuccess: (count) =>
      feedback.message?.success(t('settings.logs.cleaned', { count: Number(count) || 0 })),
    onError: (err) => {
      feedback.message?.error(t('settings.logs.cleanupFailed'));
      showError(err);
    },
  });
  const onClick = () => {
    if (!time) {
      feedback.message?.error(t('settings.logs.chooseTime'));
      return;
    }
    feedback.modal?.confirm({
      title: t('settings.logs.confirm', { time: time.format('YYYY-MM-DD HH:mm:ss') }),
      okButtonProps: { danger: true },
      onOk: () => cleanup.mutateAsync(time.unix()),
    });
  };
  return (
    <Form.Item label={t('settings.logs.cleanupLabel')}>
      <Space wrap>
        <DatePicker showTime value={time} onChange={setTime} aria-label={t('settings.logs.cleanupLabel')} />
        <Button danger onClick={onClick} loading={cleanup.isPending}>
          {t('settings.logs.cleanup')}
        </Button>
      </Space>
    </Form.Item>
  );
}
