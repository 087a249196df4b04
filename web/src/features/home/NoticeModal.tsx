import { Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../shared/RichContent.tsx';
import { readString, writeString } from '../../shared/storage.ts';
import { useContent } from './useContent.ts';

/** The last notice the visitor closed; a changed notice is shown again once. */
export const SEEN_NOTICE_KEY = 'notice_seen';

/** Shows the admin's notice once per change (the text last closed is remembered). */
export function NoticeModal() {
  const { t } = useTranslation();
  const { data: notice, isPlaceholderData } = useContent('/api/notice', 'notice');
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!isPlaceholderData && notice?.trim() && readString(SEEN_NOTICE_KEY) !== notice) setOpen(true);
  }, [notice, isPlaceholderData]);
  const close = () => {
    if (notice) writeString(SEEN_NOTICE_KEY, notice);
    setOpen(false);
  };
  return (
    <Modal
      open={open}
      title={t('home.notice')}
      onCancel={close}
      onOk={close}
      okText={t('home.noticeClose')}
      cancelButtonProps={{ style: { display: 'none' } }}
      width={640}
    >
      <RichContent text={notice ?? ''} title={t('home.notice')} frameHeight="60vh" />
    </Modal>
  );
}
