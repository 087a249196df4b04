import { Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../shared/status.ts';
import { useChatKey } from './useChatKey.ts';

/**
 * /chat2link: opens the configured chat link (status chat_link, else the first chat entry's base) with the key
 * and server address in its settings, at once.
 */
export default function Chat2LinkPage() {
  const { t } = useTranslation();
  const { status, isFetched } = useStatus();
  const { key } = useChatKey();
  const firstChat =
    Array.isArray(status.chats) && status.chats[0] ? String(Object.values(status.chats[0])[0] ?? '') : '';
  const base = (status.chat_link || firstChat.split('#')[0] || '').replace(/\/+$/, '');
  const address = status.server_address || window.location.origin;

  useEffect(() => {
    if (!base || !key) return;
    const settings = encodeURIComponent(JSON.stringify({ key, url: address }));
    window.location.assign(`${base}/#/?settings=${settings}`);
  }, [base, key, address]);

  if (isFetched && !base) return <Result status="info" title={t('chat.noLinks')} />;
  return (
    <Spin tip={t('chat.loading')} size="large" style={{ display: 'block', margin: 96 }}>
      <div style={{ height: 1 }} />
    </Spin>
  );
}
