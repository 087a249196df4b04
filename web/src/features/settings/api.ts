import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import i18n from 'i18next';
import { api } from '../../api/client.ts';
import { feedback, showError } from '../../shared/feedback.tsx';
import { STATUS_QUERY_KEY } from '../../shared/status.ts';

export type OptionMap = Record<string, string>;
export const OPTIONS_QUERY_KEY = ['options'] as const;

/** Every option the admin may read (`GET /api/option/`), as a key -> string map. Secrets are never sent. */
export function useOptions() {
  return useQuery({
    queryKey: OPTIONS_QUERY_KEY,
    queryFn: async () => {
      const list = await api.get<Array<{ key: string; value: string }>>('/api/option/');
      const map: OptionMap = {};
      for (const { key, value } of list ?? []) map[key] = value ?? '';
      return map;
    },
  });
}

/**
 * The one way the settings page saves: one `PUT /api/option/` per changed key.
 * Resolves true when every key was saved. Shows 保存成功, the server's message for a single failure, or
 * 部分保存失败，请重试 when some of several keys failed; the options and the status object are refetched.
 */
export function useSaveOptions() {
  const client = useQueryClient();
  const mutation = useMutation({
    meta: { silent: true },
    mutationFn: async (changes: Array<[key: string, value: string]>) => {
      const results = await Promise.allSettled(
        changes.map(([key, value]) => api.put('/api/option/', { key, value })),
      );
      return results;
    },
    onSettled: () => {
      client.invalidateQueries({ queryKey: OPTIONS_QUERY_KEY });
      client.invalidateQueries({ queryKey: STATUS_QUERY_KEY });
    },
  });
  return {
    saving: mutation.isPending,
    async save(changes: Array<[string, string]>): Promise<boolean> {
      if (!changes.length) {
        feedback.message?.warning(i18n.t('common.noChange'));
        return false;
      }
      let results: PromiseSettledResult<unknown>[];
      try {
        results = await mutation.mutateAsync(changes);
      } catch (err) {
        showError(err);
        return false;
      }
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (!failed.length) {
        feedback.message?.success(i18n.t('common.saveSuccess'));
        return true;
      }
      if (changes.length === 1) showError(failed[0].reason);
      else {
        feedback.message?.error(i18n.t('common.partialSaveFailed'));
        showError(failed[0].reason);
      }
      return false;
    },
  };
}
