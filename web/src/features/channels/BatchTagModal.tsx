import { Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback } from '../../shared/feedback.tsx';

/** Asks for one tag for the selected channels (it cannot be empty). */
export function BatchTagModal({
  count,
  open,
  busy,
  onOk,
  onClose,
}: {
  count: number;
  open: boolean;
  busy: boolean;
  onOk: (tag: string) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [tag, setTag] = useState('');
  return (
    <Modal
      open={open}
      title={t('channel.setTagTitle', { count })}
      confirmLoading={busy}
      onCancel={onClose}
      onOk={() => {
        if (!tag.trim()) {
          feedback.message?.error(t('channel.tagEmpty'));
          return;
        }
        onOk(tag.trim());
      }}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('channel.setTagTitle', { count })}</Typography.Paragraph>
      <Input
        value={tag}
        onChange={(e) => setTag(e.target.value)}
        placeholder={t('channel.tagPlaceholder')}
        maxLength={191}
      />
    </Modal>
  );
}
