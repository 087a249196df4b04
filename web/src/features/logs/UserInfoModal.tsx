import { useQuery } from '@tanstack/react-query';
import { Descriptions, Modal, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { QuotaText } from '../../shared/QuotaText.tsx';
import { getUser } from './api.ts';

/** Admins click a username in the log to see who it is. */
export function UserInfoModal({ userId, onClose }: { userId?: number; onClose: () => void }) {
  const { t } = useTranslation();
  const user = useQuery({
    queryKey: ['user', 'info', userId],
    queryFn: () => getUser(userId as number),
    enabled: userId !== undefined,
  });
  const u = user.data;
  return (
    <Modal open={userId !== undefined} title={t('log.userInfo')} onCancel={onClose} footer={null}>
      {user.isLoading || !u ? (
        <Spin />
      ) : (
        <Descriptions
          column={1}
          size="small"
          items={[
            { key: 'id', label: t('common.id'), children: u.id },
            { key: 'name', label: t('log.username'), children: u.username },
            { key: 'dn', label: t('log.displayName'), children: u.display_name || '-' },
            { key: 'g', label: t('log.group'), children: u.group },
            { key: 'q', label: t('log.userBalance'), children: <QuotaText quota={u.quota} /> },
            { key: 'u', label: t('log.userUsed'), children: <QuotaText quota={u.used_quota} /> },
            { key: 'r', label: t('log.userRequests'), children: u.request_count },
          ]}
        />
      )}
    </Modal>
  );
}
