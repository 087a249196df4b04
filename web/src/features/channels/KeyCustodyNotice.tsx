import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../shared/session.ts';

/**
 * Tells who may change where a channel's keys are sent: root keeps the keys, an admin enters them again (the
 * server enforces it with a 403).
 */
export function KeyCustodyNotice() {
  const { t } = useTranslation();
  const { isRoot } = useSession();
  return (
    <Alert
      type={isRoot ? 'info' : 'warning'}
      showIcon
      data-testid="key-custody"
      message={t(isRoot ? 'channel.custodyRoot' : 'channel.custodyAdmin')}
      style={{ marginBottom: 16 }}
    />
  );
}
