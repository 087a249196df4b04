import { DeleteOutlined, KeyOutlined, LockOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Form, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { copyText } from '../../shared/copyText.ts';
import { feedback } from '../../shared/feedback.tsx';
import { clearStoredUser } from '../../shared/session.ts';
import type { SelfUser } from './api.ts';

interface PasswordForm {
  original_password: string;
  password: string;
  password2: string;
}

function PasswordModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<PasswordForm>();
  const change = useMutation({
    mutationFn: (v: PasswordForm) =>
      api.put('/api/user/self', { original_password: v.original_password, password: v.password }),
    onSuccess: () => {
      feedback.message?.success(t('personal.passwordChanged'));
      form.resetFields();
      onClose();
    },
  });
  return (
    <Modal
      title={t('personal.changePassword')}
      open={open}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={change.isPending}
      destroyOnHidden
    >
      <Form<PasswordForm>
        form={form}
        name="password"
        layout="vertical"
        onFinish={(v) => change.mutate(v)}
        preserve={false}
      >
        <Form.Item
          name="original_password"
          label={t('personal.originalPassword')}
          rules={[{ required: true, message: t('personal.originalRequired') }]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('personal.newPassword')}
          dependencies={['original_password']}
          rules={[
            { required: true, message: t('personal.newRequired') },
            { min: 8, message: t('auth.passwordMin') },
            ({ getFieldValue }) => ({
              validator: (_, v) =>
                !v || v !== getFieldValue('original_password')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('personal.sameAsOld'))),
            }),
          ]}
        >
          <Input.Password
            autoComplete="new-password"
            maxLength={20}
            placeholder={t('auth.passwordPlaceholder')}
          />
        </Form.Item>
        <Form.Item
          name="password2"
          label={t('auth.confirmPassword')}
          dependencies={['password']}
          rules={[
            { required: true, message: t('auth.mismatch') },
            ({ getFieldValue }) => ({
              validator: (_, v) =>
                !v || v === getFieldValue('password')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('auth.mismatch'))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" maxLength={20} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function DeleteModal({ open, onClose, username }: { open: boolean; onClose: () => void; username: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => api.del('/api/user/self'),
    onSuccess: async () => {
      feedback.message?.success(t('personal.deleted'));
      await api.get('/api/user/logout').catch(() => {});
      clearStoredUser();
      queryClient.clear();
      navigate('/login');
    },
  });
  return (
    <Modal
      title={t('personal.deleteAccount')}
      open={open}
      onCancel={onClose}
      okText={t('personal.deleteConfirm')}
      okButtonProps={{ danger: true, disabled: typed !== username }}
      onOk={() => {
        if (typed !== username) feedback.message?.error(t('personal.typeMismatch'));
        else remove.mutate();
      }}
      confirmLoading={remove.isPending}
      destroyOnHidden
    >
      <Typography.Paragraph type="danger">{t('personal.deleteWarning')}</Typography.Paragraph>
      <Typography.Paragraph>{t('personal.typeUsername', { username })}</Typography.Paragraph>
      <Input
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        placeholder={username}
        data-testid="delete-confirm-input"
      />
    </Modal>
  );
}

/** System access token, password change and account deletion. */
export function SecurityCard({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const [token, setToken] = useState('');
  const [modal, setModal] = useState<'password' | 'delete' | null>(null);
  const generate = useMutation({
    mutationFn: () => api.get<string>('/api/user/token'),
    onSuccess: async (value) => {
      setToken(value);
      const copied = await copyText(value, { silent: true });
      feedback.message?.success(copied ? t('personal.tokenCopied') : t('personal.tokenReset'));
    },
  });
  return (
    <Card title={t('personal.security')}>
      <Flex vertical gap={16}>
        <div>
          <Typography.Text strong>{t('personal.accessToken')}</Typography.Text>
          <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
            {t('personal.accessTokenHint')}
          </Typography.Paragraph>
          {token && (
            <Input
              readOnly
              value={token}
              onClick={() => copyText(token)}
              style={{ marginBottom: 8, fontFamily: 'monospace' }}
              data-testid="access-token"
            />
          )}
          <Button icon={<KeyOutlined />} loading={generate.isPending} onClick={() => generate.mutate()}>
            {t('personal.generateToken')}
          </Button>
        </div>
        <Space wrap>
          <Button icon={<LockOutlined />} onClick={() => setModal('password')}>
            {t('personal.changePassword')}
          </Button>
          <Button danger icon={<DeleteOutlined />} onClick={() => setModal('delete')}>
            {t('personal.deleteAccount')}
          </Button>
        </Space>
      </Flex>
      <PasswordModal open={modal === 'password'} onClose={() => setModal(null)} />
      <DeleteModal open={modal === 'delete'} onClose={() => setModal(null)} username={user.username} />
    </Card>
  );
}
