import { Button, Drawer, type FormInstance, Space } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from './useIsMobile.ts';

/**
 * The drawer of a create-or-edit form: a create opens on the left, an edit on the right; `width` on a desktop,
 * the whole screen on a phone; Cancel and Submit (which submits `form`) at its foot. Its content is unmounted
 * when it closes.
 */
export function FormDrawer({
  open,
  onClose,
  editing,
  title,
  width,
  form,
  submitting,
  submitDisabled,
  submitTestId,
  children,
}: {
  open: boolean;
  onClose: () => void;
  editing: boolean;
  title: string;
  width: number;
  form: FormInstance;
  submitting: boolean;
  submitDisabled?: boolean;
  submitTestId: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  return (
    <Drawer
      open={open}
      onClose={onClose}
      placement={editing ? 'right' : 'left'}
      width={isMobile ? '100%' : width}
      title={title}
      destroyOnHidden
      footer={
        <Space style={{ justifyContent: 'flex-end', width: '100%' }}>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button
            type="primary"
            loading={submitting}
            disabled={submitDisabled}
            onClick={() => form.submit()}
            data-testid={submitTestId}
          >
            {t('common.submit')}
          </Button>
        </Space>
      }
    >
      {children}
    </Drawer>
  );
}
