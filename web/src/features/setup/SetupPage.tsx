import { QuestionCircleOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Modal, Radio, Space, Spin, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiFailure, api, requestEnvelope } from '../../api/client.ts';
import { feedback, showError } from '../../shared/feedback.tsx';

interface SetupState {
  status: boolean;
  root_init: boolean;
  database_type: string;
}

type UsageMode = 'external' | 'self' | 'demo';

interface SetupForm {
  username?: string;
  password?: string;
  confirmPassword?: string;
  usageMode: UsageMode;
}

const RELOAD_DELAY_MS = 1500;

export default function SetupPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm<SetupForm>();
  const [helpOpen, setHelpOpen] = useState(false);
  const state = useQuery({
    queryKey: ['setup'],
    queryFn: () => api.get<SetupState>('/api/setup'),
    meta: { silent: true },
  });

  useEffect(() => {
    if (state.data?.status) navigate('/', { replace: true });
  }, [state.data, navigate]);
  useEffect(() => {
    if (state.isError) feedback.message?.error(t('setup.statusFailed'));
  }, [state.isError, t]);

  const submit = useMutation({
    meta: { silent: true },
    mutationFn: async (values: SetupForm) => {
      const res = await requestEnvelope<unknown>('POST', '/api/setup', {
        username: values.username ?? '',
        password: values.password ?? '',
        confirmPassword: values.confirmPassword ?? '',
        SelfUseModeEnabled: values.usageMode === 'self',
        DemoSiteEnabled: values.usageMode === 'demo',
      });
      if (!res.success) throw new ApiFailure(res.message || t('setup.failed'), 200);
      return res.message;
    },
    onSuccess: () => {
      feedback.message?.success(t('setup.done'));
      setTimeout(() => window.location.reload(), RELOAD_DELAY_MS);
    },
    onError: (err) => {
      if (err instanceof ApiFailure && err.status === 200) feedback.message?.error(err.message);
      else if (err instanceof ApiFailure && err.status >= 400) showError(err);
      else feedback.message?.error(t('setup.systemFailed'));
    },
  });

  if (state.isLoading) return <Spin size="large" style={{ display: 'block', margin: '96px auto' }} />;
  const rootInit = !!state.data?.root_init;

  return (
    <div style={{ maxWidth: 560, margin: '0 auto' }}>
      <Card title={t('setup.title')}>
        <Typography.Paragraph type="secondary">{t('setup.intro')}</Typography.Paragraph>
        {state.data?.database_type === 'sqlite' && (
          <Alert
            type="warning"
            showIcon
            style={{ marginBottom: 16 }}
            title={t('setup.sqliteTitle')}
            description={t('setup.sqliteWarning')}
          />
        )}
        <Form<SetupForm>
          form={form}
          name="setup"
          layout="vertical"
          initialValues={{ usageMode: 'external' }}
          onFinish={(values) => submit.mutate(values)}
        >
          {rootInit ? (
            <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('setup.rootExists')} />
          ) : (
            <>
              <Typography.Title level={5}>{t('setup.adminSection')}</Typography.Title>
              <Form.Item
                name="username"
                label={t('setup.username')}
                rules={[{ required: true, whitespace: true, message: t('setup.usernameRequired') }]}
              >
                <Input placeholder={t('setup.usernamePlaceholder')} autoComplete="username" maxLength={12} />
              </Form.Item>
              <Form.Item
                name="password"
                label={t('setup.password')}
                rules={[
                  { required: true, message: t('setup.passwordMin') },
                  { min: 8, message: t('setup.passwordMin') },
                ]}
              >
                <Input.Password
                  placeholder={t('setup.passwordPlaceholder')}
                  autoComplete="new-password"
                  maxLength={20}
                />
              </Form.Item>
              <Form.Item
                name="confirmPassword"
                label={t('setup.confirmPassword')}
                dependencies={['password']}
                rules={[
                  { required: true, message: t('setup.mismatch') },
                  ({ getFieldValue }) => ({
                    validator: (_, value) =>
                      !value || value === getFieldValue('password')
                        ? Promise.resolve()
                        : Promise.reject(new Error(t('setup.mismatch'))),
                  }),
                ]}
              >
                <Input.Password
                  placeholder={t('setup.confirmPlaceholder')}
                  autoComplete="new-password"
                  maxLength={20}
                />
              </Form.Item>
            </>
          )}
          <Form.Item
            name="usageMode"
            label={
              <Space size={4}>
                {t('setup.usageMode')}
                <Button
                  type="text"
                  size="small"
                  aria-label={t('setup.modeHelp')}
                  icon={<QuestionCircleOutlined />}
                  onClick={() => setHelpOpen(true)}
                />
              </Space>
            }
          >
            <Radio.Group>
              <Space orientation="vertical">
                <Radio value="external">{t('setup.modeExternal')}</Radio>
                <Radio value="self">{t('setup.modeSelf')}</Radio>
                <Radio value="demo">{t('setup.modeDemo')}</Radio>
              </Space>
            </Radio.Group>
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={submit.isPending || submit.isSuccess}>
            {t('setup.submit')}
          </Button>
        </Form>
      </Card>
      <Modal title={t('setup.modeHelp')} open={helpOpen} onCancel={() => setHelpOpen(false)} footer={null}>
        <Typography.Paragraph>
          <Typography.Text strong>{t('setup.modeExternal')}</Typography.Text>: {t('setup.modeExternalDesc')}
        </Typography.Paragraph>
        <Typography.Paragraph>
          <Typography.Text strong>{t('setup.modeSelf')}</Typography.Text>: {t('setup.modeSelfDesc')}
        </Typography.Paragraph>
        <Typography.Paragraph>
          <Typography.Text strong>{t('setup.modeDemo')}</Typography.Text>: {t('setup.modeDemoDesc')}
        </Typography.Paragraph>
      </Modal>
    </div>
  );
}
