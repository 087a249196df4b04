import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AutoComplete,
  Button,
  Descriptions,
  Drawer,
  Form,
  Input,
  InputNumber,
  Modal,
  Space,
  Spin,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { BudgetFields, type BudgetValues, budgetBodyOf, budgetFormOf } from '../budgets/BudgetFields.tsx';
import { listGroups, USERS_KEY, type UserRow } from './api.ts';

interface EditForm extends BudgetValues {
  username: string;
  display_name: string;
  password?: string;
  group: string;
  quota: number;
}

function AddQuotaModal({
  open,
  current,
  onClose,
  onApply,
}: {
  open: boolean;
  current: number;
  onClose: () => void;
  onApply: (delta: number) => void;
}) {
  const { t } = useTranslation();
  const { format } = useQuotaFormat();
  const [delta, setDelta] = useState<number | null>(null);
  return (
    <Modal
      title={t('users.addQuota')}
      open={open}
      onCancel={onClose}
      onOk={() => {
        onApply(delta ?? 0);
        setDelta(null);
      }}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('users.addQuotaHint')}</Typography.Paragraph>
      <InputNumber
        style={{ width: '100%' }}
        precision={0}
        value={delta}
        onChange={setDelta}
        autoFocus
        data-testid="add-quota-input"
      />
      <Typography.Paragraph style={{ marginTop: 8 }}>
        {t('users.addQuotaPreview', {
          total: `${current + (delta ?? 0)} (${format(current + (delta ?? 0))})`,
        })}
      </Typography.Paragraph>
    </Modal>
  );
}

/** Edits one user as an admin: names, password, group and quota (with an "add quota" helper that accepts negatives). */
export function EditUserDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  const queryClient = useQueryClient();
  const { format, quotaPerUnit } = useQuotaFormat();
  const [form] = Form.useForm<EditForm>();
  const [addOpen, setAddOpen] = useState(false);
  const quota = Form.useWatch('quota', form) ?? 0;
  const user = useQuery({
    queryKey: ['user', id],
    enabled: id !== null,
    queryFn: () => api.get<UserRow>(`/api/user/${id}`),
    gcTime: 0,
  });
  const groups = useQuery({ queryKey: ['groups'], queryFn: listGroups, enabled: id !== null });
  const save = useMutation({
    mutationFn: (v: EditForm) =>
      api.put('/api/user/', {
        id,
        username: v.username.trim(),
        display_name: v.display_name?.trim() ?? '',
        ...(v.password ? { password: v.password } : {}),
        group: v.group.trim(),
        quota: Math.trunc(Number(v.quota)),
        ...budgetBodyOf(v),
      }),
    onSuccess: () => {
      feedback.message?.success(t('users.updated'));
      queryClient.invalidateQueries({ queryKey: USERS_KEY });
      onClose();
    },
  });
  const u = user.data;

  return (
    <Drawer
      title={t('users.edit')}
      open={id !== null}
      onClose={onClose}
      size={isMobile ? '100%' : 480}
      destroyOnHidden
      extra={
        <Space>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="primary" loading={save.isPending} disabled={!u} onClick={() => form.submit()}>
            {t('common.save')}
          </Button>
        </Space>
      }
    >
      {!u ? (
        <Spin />
      ) : (
        <Form<EditForm>
          form={form}
          name="editUser"
          layout="vertical"
          initialValues={{
            username: u.username,
            display_name: u.display_name,
            password: '',
            group: u.group,
            quota: u.quota,
            ...budgetFormOf(u),
          }}
          onFinish={(v) => save.mutate(v)}
        >
          <Form.Item
            name="username"
            label={t('users.username')}
            rules={[{ required: true, whitespace: true, message: t('users.usernameRequired') }]}
          >
            <Input maxLength={12} />
          </Form.Item>
          <Form.Item name="display_name" label={t('users.displayName')}>
            <Input maxLength={20} />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('users.password')}
            rules={[{ min: 8, message: t('users.passwordMin') }]}
          >
            <Input.Password
              autoComplete="new-password"
              placeholder={t('users.passwordOptional')}
              maxLength={20}
            />
          </Form.Item>
          <Form.Item name="group" label={t('users.group')} rules={[{ required: true, whitespace: true }]}>
            <AutoComplete options={(groups.data ?? []).map((g) => ({ value: g }))} />
          </Form.Item>
          <Form.Item
            label={t('users.quotaInUnits', { perUnit: quotaPerUnit.toLocaleString('en-US') })}
            extra={format(Number(quota) || 0)}
          >
            <Space.Compact style={{ width: '100%' }}>
              <Form.Item name="quota" noStyle rules={[{ required: true }]}>
                <InputNumber style={{ width: '100%' }} precision={0} />
              </Form.Item>
              <Button onClick={() => setAddOpen(true)}>{t('users.addQuota')}</Button>
            </Space.Compact>
          </Form.Item>
          <BudgetFields />
          <Descriptions
            title={<Typography.Text type="secondary">{t('users.bindings')}</Typography.Text>}
            size="small"
            column={1}
            items={[
              ['GitHub', u.github_id],
              ['OIDC', u.oidc_id],
              ['Linux DO', u.linux_do_id],
              [t('personal.wechat'), u.wechat_id],
              [t('common.email'), u.email],
              ['Telegram', u.telegram_id],
            ].map(([label, value]) => ({
              key: String(label),
              label,
              children: value || t('users.notBound'),
            }))}
          />
        </Form>
      )}
      <AddQuotaModal
        open={addOpen}
        current={Number(quota) || 0}
        onClose={() => setAddOpen(false)}
        onApply={(delta) => {
          form.setFieldValue('quota', (Number(quota) || 0) + delta);
          setAddOpen(false);
        }}
      />
    </Drawer>
  );
}
