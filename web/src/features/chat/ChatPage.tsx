import { Alert, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Navigate, useParams } from 'react-router';
import { useSession } from '../../shared/session.ts';
import { useStatus } from '../../shared/status.ts';
import { fillTemplate, useChatKey } from './useChatKey.ts';

/** /chat/:id: the id-th chat link of the status object, filled with the server address and a key, in a frame. */
export default function ChatPage() {
  const { isLoggedIn } = useSession();
  // The page needs the user's tokens; a visitor signs in first.
  if (!isLoggedIn) return <Navigate to="/login" replace />;
  return <ChatFrame />;
}

function ChatFrame() {
  const { t } = useTranslation();
  const { id } = useParams();
  const { status } = useStatus();
  const { key, loading } = useChatKey();
  const chats = Array.isArray(status.chats) ? status.chats : [];
  const index = Number.parseInt(id ?? '0', 10) || 0;
  const entry = chats[index];
  const template = entry ? Object.values(entry)[0] : undefined;
  const address = status.server_address || window.location.origin;

  if (!chats.length) return <Result status="info" title={t('chat.noLinks')} />;
  if (typeof template !== 'string' || !template) return <Result status="warning" title={t('chat.badLink')} />;
  if (loading || !key || !address)
    return <Alert type="warning" showIcon title={t('chat.redirecting')} style={{ margin: 16 }} />;
  return (
    <iframe
      src={fillTemplate(template, address, key)}
      title={Object.keys(entry)[0]}
      allow="camera;microphone"
      style={{ width: '100%', height: 'calc(100vh - 56px)', border: 0, display: 'block' }}
    />
  );
}
