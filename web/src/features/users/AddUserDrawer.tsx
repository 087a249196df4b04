import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { USERS_KEY } from './api.ts';

interface AddForm {
  username: string;
  display_name?: string;
  password: string;
}

export function AddUserDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<AddForm>();
  const create = useMutation({
    mutationFn: (v: AddForm) =>
      api.post('/api/user/', {
        username: v.username.trim(),
        display_name: v.display_name?.trim() || v.username.trim(),
        password: v.password,
      }),
    onSuccess: () => {
      feedback.message?.success(t('users.created'));
      queryClient.invalidateQueries({ queryKey: USERS_KEY });
      form.resetFields();
      onClose();
    },
  });
  const required = { required: true, whitespace: true, message: t('users.userPassRequired') };
  return (
    <Drawer
      title={t('users.add')}
      open={open}
      onClose={onClose}
      size={isMobile ? '100%' : 420}
      extra={
        <Space>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="primary" loading={create.isPending} onClick={() => form.submit()}>
            {t('common.submit')}
          </Button>
        </Space>
      }
    >
      <Form<AddForm> form={form} name="addUser" layout="vertical" onFinish={(v) => create.mutate(v)}>
        <Form.Item name="username" label={t('users.username')} rules={[required]}>
          <Input autoComplete="off" maxLength={12} />
        </Form.Item>
        <Form.Item name="display_name" label={t('users.displayName')}>
          <Input autoComplete="off" maxLength={20} />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('users.password')}
          rules={[required, { min: 8, message: t('users.passwordMin') }]}
        >
          <Input.Password autoComplete="new-password" maxLength={20} />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
