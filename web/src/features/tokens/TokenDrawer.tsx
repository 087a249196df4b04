import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Checkbox,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDrawer } from '../../shared/FormDrawer.tsx';
import { feedback, showCheckInput } from '../../shared/feedback.tsx';
import { groupDesc } from '../../shared/groupDesc.ts';
import { QuotaInput } from '../../shared/QuotaInput.tsx';
import {
  BudgetFields,
  type BudgetValues,
  budgetBodyOf,
  budgetFormOf,
  NO_BUDGET,
} from '../budgets/BudgetFields.tsx';
import {
  NO_RATE_LIMITS,
  rateLimitsOf,
  TokenRateLimitFields,
  type TokenRateLimitValues,
} from '../rate-limits/TokenRateLimitFields.tsx';
import { createTokens, fetchUserGroups, fetchUserModels, type Token, updateToken } from './api.ts';
import { invalidIpEntry } from './ipList.ts';

interface FormValues extends TokenRateLimitValues, BudgetValues {
  name: string;
  expiry: Dayjs | null;
  remain_quota: number;
  unlimited_quota: boolean;
  count: number;
  allow_ips: string;
  model_limits_enabled: boolean;
  model_limits: string[];
  response_cache: boolean;
  /** Undefined shows the placeholder: the token uses the user's own group. */
  group?: string;
}

/** A new token has 500000 quota, never expires, one at a time. */
const DEFAULTS: FormValues = {
  name: '',
  expiry: null,
  remain_quota: 500_000,
  unlimited_quota: false,
  count: 1,
  allow_ips: '',
  model_limits_enabled: false,
  model_limits: [],
  response_cache: false,
  group: undefined,
  ...NO_RATE_LIMITS,
  ...NO_BUDGET,
};

const COUNT_PRESETS = [10, 20, 30, 100];

function fromToken(t: Token): FormValues {
  return {
    name: t.name,
    expiry: t.expired_time === -1 ? null : dayjs.unix(t.expired_time),
    remain_quota: t.remain_quota,
    unlimited_quota: t.unlimited_quota,
    count: 1,
    allow_ips: t.allow_ips,
    model_limits_enabled: t.model_limits_enabled,
    model_limits: t.model_limits ? t.model_limits.split(',').filter(Boolean) : [],
    response_cache: t.response_cache,
    group: t.group || undefined,
    ...rateLimitsOf(t),
    ...budgetFormOf(t),
  };
}

/** Create (editing undefined; opens on the left) or edit one token (opens on the right). */
export function TokenDrawer({
  open,
  editing,
  onClose,
}: {
  open: boolean;
  editing?: Token;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const unlimited = Form.useWatch('unlimited_quota', form);
  const limitsOn = Form.useWatch('model_limits_enabled', form);

  const models = useQuery({
    queryKey: ['user-models'],
    queryFn: fetchUserModels,
    enabled: open,
    staleTime: 60_000,
  });
  const groups = useQuery({
    queryKey: ['user-groups'],
    queryFn: fetchUserGroups,
    enabled: open,
    staleTime: 60_000,
  });
  const groupEntries = Object.entries(groups.data ?? {});

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(editing ? fromToken(editing) : DEFAULTS);
  }, [open, editing, form]);

  const save = useMutation({
    mutationFn: async (v: FormValues) => {
      const body = {
        name: v.name.trim(),
        expired_time: v.expiry ? v.expiry.unix() : -1,
        remain_quota: v.unlimited_quota ? (v.remain_quota ?? 0) : v.remain_quota,
        unlimited_quota: v.unlimited_quota,
        model_limits_enabled: v.model_limits_enabled,
        model_limits: v.model_limits_enabled ? v.model_limits.join(',') : (editing?.model_limits ?? ''),
        allow_ips: v.allow_ips ?? '',
        group: v.group ?? '',
        response_cache: !!v.response_cache,
        ...rateLimitsOf(v),
        ...budgetBodyOf(v),
      };
      if (editing) {
        // An unchanged (possibly past) expiry is sent as it was so renaming an expired token works.
        const expiry =
          v.expiry && editing.expired_time !== -1 && v.expiry.unix() === editing.expired_time
            ? editing.expired_time
            : body.expired_time;
        return { updated: await updateToken({ id: editing.id, ...body, expired_time: expiry }) };
      }
      return { created: await createTokens({ ...body, count: v.count ?? 1 }) };
    },
    onSuccess: (res) => {
      queryClient.invalidateQueries({ queryKey: ['tokens'] });
      if ('created' in res && res.created)
        feedback.message?.success(
          res.created.length > 1
            ? t('token.createdMany', { count: res.created.length })
            : t('token.created1'),
        );
      else feedback.message?.success(t('token.updated'));
      onClose();
    },
  });

  const setExpiry = (hours: number | null) =>
    form.setFieldsValue({ expiry: hours === null ? null : dayjs().add(hours, 'hour').startOf('second') });

  return (
    <FormDrawer
      open={open}
      onClose={onClose}
      editing={!!editing}
      title={t(editing ? 'token.editTitle' : 'token.createTitle')}
      width={520}
      form={form}
      submitting={save.isPending}
      submitTestId="token-submit"
    >
      <Form<FormValues>
        form={form}
        name="token"
        layout="vertical"
        initialValues={DEFAULTS}
        onFinish={(v) => save.mutate(v)}
        onFinishFailed={showCheckInput}
        scrollToFirstError
      >
        <Form.Item
          name="name"
          label={t('token.name')}
          rules={[
            { required: true, whitespace: true, message: t('token.nameRequired') },
            {
              // Batch-made names carry a suffix past 50; an unchanged name may stay.
              validator: (_, v?: string) =>
                (v ?? '').trim().length <= 50 || v === editing?.name
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('token.nameTooLong'))),
            },
          ]}
        >
          <Input placeholder={t('token.namePlaceholder')} allowClear maxLength={60} />
        </Form.Item>
        <Form.Item label={t('token.expiry')} required={false}>
          <Form.Item
            name="expiry"
            noStyle
            rules={[
              {
                validator: (_, v: Dayjs | null) => {
                  if (!v) return Promise.resolve();
                  if (!dayjs.isDayjs(v) || !v.isValid())
                    return Promise.reject(new Error(t('token.expiryInvalid')));
                  const unchanged =
                    editing && editing.expired_time !== -1 && v.unix() === editing.expired_time;
                  if (!unchanged && v.isBefore(dayjs()))
                    return Promise.reject(new Error(t('token.expiryPast')));
                  return Promise.resolve();
                },
              },
            ]}
          >
            <DatePicker
              showTime
              style={{ width: '100%' }}
              placeholder={t('token.expiryPlaceholder')}
              format="YYYY-MM-DD HH:mm:ss"
            />
          </Form.Item>
          <Space wrap size={[6, 6]} style={{ marginTop: 8 }}>
            <Button size="small" onClick={() => setExpiry(null)}>
              {t('token.never')}
            </Button>
            <Button size="small" onClick={() => setExpiry(1)}>
              {t('token.hour1')}
            </Button>
            <Button size="small" onClick={() => setExpiry(24)}>
              {t('token.day1')}
            </Button>
            <Button size="small" onClick={() => setExpiry(24 * 30)}>
              {t('token.month1')}
            </Button>
          </Space>
        </Form.Item>
        <Alert type="info" showIcon message={t('token.quotaNotice')} style={{ marginBottom: 16 }} />
        {unlimited ? (
          <Form.Item label={t('token.quota')}>
            <Typography.Text type="secondary">{t('token.unlimited')}</Typography.Text>
          </Form.Item>
        ) : (
          <Form.Item
            name="remain_quota"
            label={t('token.quota')}
            rules={[{ required: true, type: 'integer', min: 0, message: t('token.quotaInvalid') }]}
          >
            <QuotaInput />
          </Form.Item>
        )}
        <Form.Item name="unlimited_quota" label={t('token.unlimitedSwitch')} valuePropName="checked">
          <Switch />
        </Form.Item>
        {!editing && (
          <Form.Item label={t('token.count')} extra={t('token.countHint')}>
            <Form.Item
              name="count"
              noStyle
              rules={[
                { required: true, type: 'integer', min: 1, max: 100, message: t('token.countInvalid') },
              ]}
            >
              <InputNumber min={1} max={100} precision={0} style={{ width: '100%' }} />
            </Form.Item>
            <Space wrap size={[6, 6]} style={{ marginTop: 8 }}>
              {COUNT_PRESETS.map((n) => (
                <Button key={n} size="small" onClick={() => form.setFieldsValue({ count: n })}>
                  {n}
                </Button>
              ))}
            </Space>
          </Form.Item>
        )}
        <TokenRateLimitFields />
        <BudgetFields />
        <Form.Item
          name="allow_ips"
          label={t('token.ipList')}
          rules={[
            {
              validator: (_, v?: string) => {
                const bad = invalidIpEntry(v);
                return bad
                  ? Promise.reject(new Error(t('token.ipInvalid', { entry: bad })))
                  : Promise.resolve();
              },
            },
          ]}
        >
          <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} placeholder={t('token.ipPlaceholder')} />
        </Form.Item>
        <Form.Item name="model_limits_enabled" valuePropName="checked" style={{ marginBottom: 8 }}>
          <Checkbox>{t('token.modelLimits')}</Checkbox>
        </Form.Item>
        <Form.Item
          name="model_limits"
          rules={[
            {
              validator: (_, v?: string[]) =>
                limitsOn && !v?.length
                  ? Promise.reject(new Error(t('token.modelLimitsEmpty')))
                  : Promise.resolve(),
            },
          ]}
        >
          <Select
            mode="multiple"
            allowClear
            disabled={!limitsOn}
            placeholder={t('token.modelLimitsPlaceholder')}
            options={(models.data ?? []).map((m) => ({ value: m, label: m }))}
            loading={models.isFetching}
            maxTagCount="responsive"
          />
        </Form.Item>
        <Form.Item
          name="group"
          label={t('token.group')}
          extra={groups.isFetched && groupEntries.length === 0 ? t('token.groupNone') : undefined}
        >
          <Select
            allowClear
            placeholder={t('token.groupPlaceholder')}
            loading={groups.isFetching}
            options={groupEntries.map(([name, g]) => ({
              value: name,
              label: (
                <Space size={6}>
                  <span>{name}</span>
                  {g.desc && g.desc !== name && (
                    <Typography.Text type="secondary">{groupDesc(name, g.desc, t)}</Typography.Text>
                  )}
                  <Tag color="blue">{t('token.ratio', { ratio: g.ratio })}</Tag>
                </Space>
              ),
            }))}
          />
        </Form.Item>
        <Form.Item name="response_cache" valuePropName="checked" extra={t('token.responseCacheHelp')}>
          <Checkbox>{t('token.responseCache')}</Checkbox>
        </Form.Item>
      </Form>
    </FormDrawer>
  );
}
