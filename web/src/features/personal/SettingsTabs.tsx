import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Checkbox, Form, Input, InputNumber, Radio, Space, Tabs, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { errorText, feedback } from '../../shared/feedback.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { parseSetting, SELF_KEY, type SelfUser } from './api.ts';

const THRESHOLD_PRESETS = [100000, 500000, 1000000, 5000000];

interface SettingForm {
  notify_type: 'email' | 'webhook';
  quota_warning_threshold: number;
  webhook_url: string;
  webhook_secret: string;
  notification_email: string;
  accept_unset_model_ratio_model: boolean;
}

/** Notification settings and price acceptance; one save sends the whole setting (a blank secret keeps the stored one). */
export function SettingsTabs({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { format } = useQuotaFormat();
  const setting = parseSetting(user.setting);
  const [form] = Form.useForm<SettingForm>();
  const notifyType = Form.useWatch('notify_type', form) ?? setting.notify_type;

  const save = useMutation({
    meta: { silent: true },
    mutationFn: (v: SettingForm) =>
      api.put('/api/user/setting', {
        notify_type: v.notify_type,
        quota_warning_threshold: v.quota_warning_threshold,
        webhook_url: v.webhook_url?.trim() ?? '',
        ...(v.webhook_secret ? { webhook_secret: v.webhook_secret } : {}),
        notification_email: v.notification_email?.trim() ?? '',
        accept_unset_model_ratio_model: !!v.accept_unset_model_ratio_model,
      }),
    onSuccess: () => {
      feedback.message?.success(t('personal.settingSaved'));
      queryClient.invalidateQueries({ queryKey: SELF_KEY });
    },
    onError: (err) => feedback.message?.error(`${t('personal.settingFailed')}: ${errorText(err)}`),
  });

  const saveButton = (
    <Button type="primary" onClick={() => form.submit()} loading={save.isPending}>
      {t('common.save')}
    </Button>
  );

  return (
    <Card>
      <Form<SettingForm>
        form={form}
        name="setting"
        layout="vertical"
        initialValues={{ ...setting, webhook_secret: '' }}
        onFinish={(v) => save.mutate({ ...form.getFieldsValue(true), ...v })}
      >
        <Tabs
          items={[
            {
              key: 'notify',
              label: t('personal.notifyTab'),
              forceRender: true,
              children: (
                <>
                  <Form.Item name="notify_type" label={t('personal.notifyType')}>
                    <Radio.Group
                      options={[
                        { value: 'email', label: t('personal.notifyEmail') },
                        { value: 'webhook', label: t('personal.notifyWebhook') },
                      ]}
                    />
                  </Form.Item>
                  <Form.Item
                    name="quota_warning_threshold"
                    label={t('personal.threshold')}
                    extra={t('personal.thresholdHint')}
                    rules={[
                      { required: true, type: 'number', min: 0, message: t('personal.thresholdInvalid') },
                    ]}
                  >
                    <InputNumber style={{ width: '100%' }} min={0} precision={0} />
                  </Form.Item>
                  <Space wrap style={{ marginTop: -12, marginBottom: 16 }}>
                    {THRESHOLD_PRESETS.map((q) => (
                      <Tag
                        key={q}
                        style={{ cursor: 'pointer' }}
                        onClick={() => form.setFieldValue('quota_warning_threshold', q)}
                      >
                        {format(q)}
                      </Tag>
                    ))}
                  </Space>
                  {notifyType === 'webhook' ? (
                    <>
                      <Form.Item
                        name="webhook_url"
                        label={t('personal.webhookUrl')}
                        extra={t('personal.webhookHint')}
                        rules={[
                          { required: true, message: t('personal.webhookRequired') },
                          { pattern: /^https:\/\/\S+$/, message: t('personal.webhookHttps') },
                        ]}
                      >
                        <Input placeholder="https://example.com/webhook" />
                      </Form.Item>
                      <Form.Item
                        name="webhook_secret"
                        label={t('personal.webhookSecret')}
                        extra={
                          setting.webhook_secret_set ? t('personal.secretKept') : t('personal.secretHint')
                        }
                      >
                        <Input.Password autoComplete="off" />
                      </Form.Item>
                    </>
                  ) : (
                    <Form.Item
                      name="notification_email"
                      label={t('personal.notifyEmailAddress')}
                      extra={t('personal.notifyEmailHint')}
                      rules={[{ type: 'email', message: t('personal.emailInvalid') }]}
                    >
                      <Input placeholder={user.email || 'name@example.com'} />
                    </Form.Item>
                  )}
                  {saveButton}
                </>
              ),
            },
            {
              key: 'price',
              label: t('personal.priceTab'),
              forceRender: true,
              children: (
                <>
                  <Form.Item
                    name="accept_unset_model_ratio_model"
                    valuePropName="checked"
                    extra={t('personal.acceptUnsetHint')}
                  >
                    <Checkbox>{t('personal.acceptUnset')}</Checkbox>
                  </Form.Item>
                  <Typography.Paragraph />
                  {saveButton}
                </>
              ),
            },
          ]}
        />
      </Form>
    </Card>
  );
}
