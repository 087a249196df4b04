import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';

/**
 * The first enabled token key (`sk-...`) of the logged-in user, for chat links: with no enabled token it says
 * so and goes to /token after 1.5 s.
 */
export function useChatKey(): { key?: string; loading: boolean } {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const tokens = useQuery({
    queryKey: ['tokens', 'chat-key'],
    queryFn: () => api.get<Array<{ key: string; status: number }>>('/api/token/', { p: 0, size: 100 }),
  });
  const enabled = (tokens.data ?? []).filter((tk) => tk.status === 1);
  const none = tokens.isSuccess && enabled.length === 0;
  useEffect(() => {
    if (!none) return;
    feedback.message?.error(t('chat.noToken'));
    const timer = setTimeout(() => navigate('/token'), 1500);
    return () => clearTimeout(timer);
  }, [none, navigate, t]);
  const raw = enabled[0]?.key;
  return { key: raw ? (raw.startsWith('sk-') ? raw : `sk-${raw}`) : undefined, loading: tokens.isLoading };
}

/** Fills a chat link template: {address} url-encoded, {key} as is. */
export function fillTemplate(template: string, address: string, key: string) {
  return template.replaceAll('{address}', encodeURIComponent(address)).replaceAll('{key}', key);
}
