import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, DatePicker, Popconfirm, Space, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import { cleanLogs } from './api.ts';

/**
 * Deletes every usage log older than a chosen time, after a confirmation (spec 000 §5: a time must be
 * chosen). Used on the log page for admins; the settings page may show it too.
 */
export function LogCleanup() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [time, setTime] = useState<Dayjs | null>(null);
  const clean = useMutation({
    mutationFn: (before: number) => cleanLogs(before),
    meta: { silent: true },
    onSuccess: (count) => {
      feedback.message?.success(t('log.cleanupDone', { count }));
      queryClient.invalidateQueries({ queryKey: ['logs'] });
      queryClient.invalidateQueries({ queryKey: ['log-stat'] });
    },
    onError: (err) =>
      feedback.message?.error(
        `${t('log.cleanupFailed')}: ${err instanceof ApiFailure ? err.message : String(err)}`,
      ),
  });
  return (
    <Space direction="vertical" size={4}>
      <Typography.Text type="secondary">{t('log.cleanupHint')}</Typography.Text>
      <Space wrap>
        <DatePicker
          showTime
          value={time}
          onChange={setTime}
          placeholder={t('log.cleanupPick')}
          aria-label={t('log.cleanupPick')}
        />
        {time ? (
          <Popconfirm
            title={t('log.cleanupConfirm', { time: time.format('YYYY-MM-DD HH:mm:ss') })}
            onConfirm={() => clean.mutate(time.unix())}
            okButtonProps={{ danger: true }}
          >
            <Button danger loading={clean.isPending}>
              {t('log.cleanupButton')}
            </Button>
          </Popconfirm>
        ) : (
          <Button danger onClick={() => feedback.message?.error(t('log.cleanupPick'))}>
            {t('log.cleanupButton')}
          </Button>
        )}
      </Space>
    </Space>
  );
}
