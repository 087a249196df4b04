import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { feedback } from '../../shared/feedback.tsx';
import { testChannel } from './api.ts';
import type { Row } from './rows.ts';

/** Tests one channel (optionally with a model), says how it went, and refreshes the list. */
export function useChannelTest() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ row, model }: { row: Row; model?: string }) => testChannel(row.id, model),
    onSuccess: (r, { row, model }) => {
      const used = model || row.test_model || row.models.split(',')[0] || '';
      if (r.success)
        feedback.message?.success(
          t('channel.testOk', { name: row.name, model: used, time: (r.time ?? 0).toFixed(2) }),
        );
      else feedback.message?.error(t('channel.testFailed', { name: row.name, message: r.message }));
      queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
  });
}
