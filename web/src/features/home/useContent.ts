import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { readString, writeString } from '../../shared/storage.ts';

/**
 * One admin-written text (`/api/home_page_content`, `/api/about`, `/api/notice`), painted at once from the
 * copy kept under `cacheKey` and refreshed from the server.
 */
export function useContent(path: string, cacheKey: string) {
  return useQuery({
    queryKey: ['content', path],
    queryFn: async () => {
      const text = (await api.get<string>(path)) ?? '';
      writeString(cacheKey, text);
      return text;
    },
    placeholderData: () => readString(cacheKey) ?? undefined,
  });
}
