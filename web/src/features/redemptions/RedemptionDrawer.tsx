import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input, InputNumber } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDrawer } from '../../shared/FormDrawer.tsx';
import { feedback, showCheckInput } from '../../shared/feedback.tsx';
import { QuotaInput } from '../../shared/QuotaInput.tsx';
import { createRedemptions, type Redemption, updateRedemption } from './api.ts';
import { downloadCodes } from './download.ts';

interface FormValues {
  name?: string;
  quota: number;
  count?: number;
}

/** A new code defaults to quota 100000 and count 1. */
const DEFAULTS: FormValues = { name: '', quota: 100_000, count: 1 };

/** Create (editing = undefined) or edit one code. After a create, offers the new codes as a text file. */
export function RedemptionDrawer({
  open,
  editing,
  onClose,
}: {
  open: boolean;
  editing?: Redemption;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<FormValues>();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(editing ? { name: editing.name, quota: editing.quota } : DEFAULTS);
  }, [open, editing, form]);

  const save = useMutation({
    mutationFn: async (v: FormValues) => {
      const name = (v.name ?? '').trim();
      if (editing) return { edited: await updateRedemption({ id: editing.id, name, quota: v.quota }) };
      return { keys: await createRedemptions({ name, quota: v.quota, count: v.count ?? 1 }), name };
    },
    onSuccess: (res) => {
      queryClient.invalidateQueries({ queryKey: ['redemptions'] });
      onClose();
      if ('keys' in res && res.keys) {
        const keys = res.keys;
        feedback.message?.success(t('redemption.created', { count: keys.length }));
        feedback.modal?.success({
          okCancel: true,
          title: t('redemption.downloadTitle', { count: keys.length }),
          content: t('redemption.downloadAsk', { count: keys.length }),
          okText: t('redemption.download'),
          cancelText: t('common.close'),
          onOk: () => downloadCodes(res.name || 'redemption-codes', keys),
        });
      } else feedback.message?.success(t('redemption.updated'));
    },
  });

  return (
    <FormDrawer
      open={open}
      onClose={onClose}
      editing={!!editing}
      title={t(editing ? 'redemption.editTitle' : 'redemption.createTitle')}
      width={480}
      form={form}
      submitting={save.isPending}
      submitTestId="redemption-submit"
    >
      <Form<FormValues>
        form={form}
        layout="vertical"
        onFinish={(v) => save.mutate(v)}
        onFinishFailed={showCheckInput}
        scrollToFirstError
      >
        <Form.Item
          name="name"
          label={t('redemption.name')}
          rules={[
            { required: !!editing, whitespace: true, message: t('redemption.nameTooLong') },
            {
              validator: (_, v?: string) =>
                [...(v ?? '').trim()].length <= 20
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('redemption.nameTooLong'))),
            },
          ]}
        >
          <Input placeholder={editing ? undefined : t('redemption.namePlaceholder')} allowClear />
        </Form.Item>
        <Form.Item
          name="quota"
          label={t('redemption.quotaLabel')}
          rules={[{ required: true, type: 'integer', min: 1, message: t('redemption.quotaInvalid') }]}
        >
          <QuotaInput />
        </Form.Item>
        {!editing && (
          <Form.Item
            name="count"
            label={t('redemption.count')}
            rules={[
              { required: true, type: 'integer', min: 1, max: 100, message: t('redemption.countInvalid') },
            ]}
          >
            <InputNumber min={1} max={100} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        )}
      </Form>
    </FormDrawer>
  );
}
