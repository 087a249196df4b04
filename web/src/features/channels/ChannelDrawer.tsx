import { CHANNEL_NAME_MAX, CHANNEL_TYPES, channelSettingFields, channelTypeInfo } from '@modelgate/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Form, Input, InputNumber, Radio, Select, Space, Spin, Switch } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDrawer } from '../../shared/FormDrawer.tsx';
import { feedback, showCheckInput } from '../../shared/feedback.tsx';
import { JsonTextArea, jsonRule } from '../../shared/JsonTextArea.tsx';
import { CostFields } from '../cost/CostFields.tsx';
import { type ChannelInput, createChannel, getChannel, updateChannel } from './api.ts';
import { askBaseUrlV1 } from './askBaseUrlV1.tsx';
import { ChannelKeys } from './ChannelKeys.tsx';
import { DEFAULTS, type FormValues, fromChannel, toInput } from './channelForm.ts';
import { KeyCustodyNotice } from './KeyCustodyNotice.tsx';
import { ModelPicker, useTypeModels } from './ModelPicker.tsx';
import { OtherInput } from './OtherInput.tsx';
import { TEMPLATES } from './templates.ts';

/** Create (no id) or edit a channel; opened by /channel/add and /channel/edit/:id. */
export function ChannelDrawer({
  open,
  editId,
  groups,
  onClose,
}: {
  open: boolean;
  editId?: number;
  groups: string[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<FormValues>();
  const [loaded, setLoaded] = useState(false);
  const keptV1 = useRef('');
  const type = Form.useWatch('type', form) ?? 1;
  const keyMode = Form.useWatch('keyMode', form);
  const batch = keyMode === 'batch' || keyMode === 'multi_key';
  const typeModels = useTypeModels();
  // Seeds a new form's models once; later loads of the list must not reset what the user typed.
  const seedModels = useRef<string[] | undefined>(undefined);
  seedModels.current = typeModels.data?.['1'];
  const editing = useQuery({
    queryKey: ['channel', editId],
    queryFn: () => getChannel(editId as number),
    enabled: open && !!editId,
    gcTime: 0,
  });

  useEffect(() => {
    if (!open) {
      setLoaded(false);
      return;
    }
    if (editId && !editing.data) return;
    form.resetFields();
    form.setFieldsValue(
      editId && editing.data ? fromChannel(editing.data) : { ...DEFAULTS, models: seedModels.current ?? [] },
    );
    setLoaded(true);
  }, [open, editId, editing.data, form]);

  // A deep link to a channel that does not exist: the error toast has said so; back to the list.
  useEffect(() => {
    if (open && editId && editing.isError) onClose();
  }, [open, editId, editing.isError, onClose]);

  const onTypeChange = (next: number) => {
    if (editId) return;
    form.setFieldsValue({
      models: typeModels.data?.[String(next)] ?? [],
      other: channelTypeInfo(next)?.other?.default ?? '',
    });
  };

  const save = useMutation({
    mutationFn: async (body: ChannelInput) => {
      if (editId) await updateChannel({ ...body, id: editId });
      else await createChannel(body);
    },
    onSuccess: () => {
      feedback.message?.success(t(editId ? 'channel.updated' : 'channel.created'));
      queryClient.invalidateQueries({ queryKey: ['channels'] });
      onClose();
    },
  });

  const submit = async (v: FormValues) => {
    const multi = editId ? (editing.data?.keys?.length ?? 0) > 1 : v.keyMode === 'multi_key';
    const body = toInput(v, { editing: !!editId, multi });
    const url = body.base_url ?? '';
    // Asked once per address: not again for the address the channel already has, or one kept in this form.
    if (/\/v1$/.test(url) && url !== editing.data?.base_url && url !== keptV1.current) {
      const choice = await askBaseUrlV1(t, url);
      if (!choice) return;
      if (choice === 'strip') {
        body.base_url = url.replace(/\/v1$/, '');
        form.setFieldValue('base_url', body.base_url);
      } else keptV1.current = url;
    }
    save.mutate(body);
  };

  const info = channelTypeInfo(type);
  const hint = info?.keyHint;
  const notice = info?.notice;
  const json = (name: keyof typeof TEMPLATES & keyof FormValues, label: string, extra: string) => (
    <Form.Item label={label} extra={extra} style={{ marginBottom: 16 }}>
      <Form.Item name={name} noStyle rules={[jsonRule]} validateTrigger={['onChange', 'onBlur']}>
        <JsonTextArea inlineError={false} autoSize={{ minRows: 2, maxRows: 10 }} />
      </Form.Item>
      <Button
        size="small"
        type="link"
        style={{ paddingLeft: 0 }}
        onClick={() => form.setFieldsValue({ [name]: TEMPLATES[name] })}
      >
        {t('channel.fillTemplate')}
      </Button>
    </Form.Item>
  );

  return (
    <FormDrawer
      open={open}
      onClose={onClose}
      editing={!!editId}
      title={t(editId ? 'channel.editTitle' : 'channel.createTitle')}
      width={640}
      form={form}
      submitting={save.isPending}
      submitDisabled={!loaded}
      submitTestId="channel-submit"
    >
      <Spin spinning={!loaded}>
        <Form<FormValues>
          form={form}
          name="channel"
          layout="vertical"
          onFinish={submit}
          onFinishFailed={showCheckInput}
          scrollToFirstError
        >
          <Form.Item name="type" label={t('channel.type')}>
            <Select
              showSearch
              optionFilterProp="label"
              onChange={onTypeChange}
              options={CHANNEL_TYPES.map((ct) => ({
                value: ct.id,
                label: `${ct.name} (${ct.id})${ct.deprecated ? ` · ${t('channel.deprecated')}` : ''}`,
              }))}
            />
          </Form.Item>
          {channelTypeInfo(type)?.deprecated && (
            <Alert
              type="warning"
              showIcon
              message={t('channel.deprecatedType')}
              description={channelTypeInfo(type)?.deprecated}
              style={{ marginBottom: 16 }}
            />
          )}
          {notice && (
            <Alert type="info" showIcon message={t(`channel.${notice}`)} style={{ marginBottom: 16 }} />
          )}
          <Form.Item
            name="name"
            label={t('channel.name')}
            rules={[
              { required: true, whitespace: true, message: t('channel.nameRequired') },
              { max: CHANNEL_NAME_MAX, message: t('channel.nameTooLong', { max: CHANNEL_NAME_MAX }) },
            ]}
          >
            <Input placeholder={t('channel.namePlaceholder')} showCount maxLength={CHANNEL_NAME_MAX} />
          </Form.Item>
          <Form.Item
            name="base_url"
            label={t('channel.baseUrl')}
            extra={info?.baseUrlHint ? t(`channel.${info.baseUrlHint}`) : undefined}
          >
            <Input placeholder={t('channel.baseUrlPlaceholder')} maxLength={512} />
          </Form.Item>
          {info?.other && <OtherInput field={info.other} form={form} />}
          {channelSettingFields(type)
            .filter((f) => !f.hidden)
            .map((f) => (
              <Form.Item
                key={f.name}
                name={['providerSetting', f.name]}
                label={t(`channel.setting_${f.name}`)}
                extra={t(`channel.settingHint_${f.name}`)}
                valuePropName={f.kind === 'boolean' && !f.orString ? 'checked' : 'value'}
              >
                {f.orString ? (
                  <Select
                    style={{ width: 240 }}
                    allowClear
                    options={['auto', 'global', 'us', 'eu', 'apac', 'jp', 'au', 'us-gov'].map((v) => ({
                      value: v,
                      label: v === 'auto' ? t('channel.crossRegionAuto') : v,
                    }))}
                  />
                ) : f.kind === 'boolean' ? (
                  <Switch />
                ) : f.kind === 'number' ? (
                  <InputNumber min={f.min} max={f.max} precision={0} style={{ width: 160 }} />
                ) : (
                  <Input style={{ maxWidth: 320 }} />
                )}
              </Form.Item>
            ))}
          {editId && <KeyCustodyNotice />}
          <Form.Item
            name="key"
            label={info?.keyIsDocument ? t('channel.documentKey') : t('channel.key')}
            rules={[{ required: !editId, whitespace: true, message: t('channel.keyRequired') }]}
            extra={
              [hint ? t('channel.keyFormat', { hint }) : '', editId ? t('channel.keyEditHint') : '']
                .filter(Boolean)
                .join(' · ') || undefined
            }
          >
            {batch || info?.keyIsDocument ? (
              <Input.TextArea
                autoSize={{ minRows: 3, maxRows: 12 }}
                placeholder={
                  keyMode === 'multi_key'
                    ? t('channel.keyMultiPlaceholder')
                    : keyMode === 'batch'
                      ? t('channel.keyBatchPlaceholder')
                      : hint
                }
                style={{ fontFamily: 'monospace' }}
              />
            ) : (
              <Input.Password placeholder={hint ?? t('channel.keyPlaceholder')} autoComplete="new-password" />
            )}
          </Form.Item>
          {!editId && (
            <Form.Item
              name="keyMode"
              style={{ marginTop: -8 }}
              extra={t(`channel.keyModeHint_${keyMode ?? 'single'}`)}
            >
              <Radio.Group
                optionType="button"
                options={(['single', 'batch', 'multi_key'] as const).map((m) => ({
                  value: m,
                  label: t(`channel.keyMode_${m}`),
                }))}
              />
            </Form.Item>
          )}
          {(keyMode === 'multi_key' || (editing.data?.keys?.length ?? 0) > 1) && (
            <Form.Item name="multiKeyMode" label={t('channel.multiKeyMode')}>
              <Select
                style={{ width: 200 }}
                options={(['random', 'polling'] as const).map((m) => ({
                  value: m,
                  label: t(`channel.multiKey_${m}`),
                }))}
              />
            </Form.Item>
          )}
          {editId && editing.data?.keys && editing.data.keys.length > 1 && (
            <ChannelKeys channelId={editId} keys={editing.data.keys} />
          )}
          {info?.organization && (
            <Form.Item name="openai_organization" label={t('channel.organization')}>
              <Input placeholder={t('channel.organizationPlaceholder')} />
            </Form.Item>
          )}
          <Form.Item name="groups" label={t('channel.groups')}>
            <Select
              mode="tags"
              options={groups.map((g) => ({ value: g, label: g }))}
              tokenSeparators={[',']}
            />
          </Form.Item>
          <Form.Item
            name="models"
            label={t('channel.models')}
            rules={[{ required: true, type: 'array', min: 1, message: t('channel.modelsRequired') }]}
          >
            <ModelPicker
              type={type}
              channelId={editId}
              upstream={() => ({
                base_url: form.getFieldValue('base_url') ?? '',
                key: form.getFieldValue('key') ?? '',
              })}
            />
          </Form.Item>
          <Form.Item label={t('channel.modelMapping')} extra={t('channel.modelMappingHint')}>
            <Form.Item
              name="model_mapping"
              noStyle
              rules={[{ ...jsonRule, message: t('channel.mappingInvalid') }]}
              validateTrigger={['onChange', 'onBlur']}
            >
              <JsonTextArea inlineError={false} autoSize={{ minRows: 2, maxRows: 10 }} />
            </Form.Item>
            <Button
              size="small"
              type="link"
              style={{ paddingLeft: 0 }}
              onClick={() => form.setFieldsValue({ model_mapping: TEMPLATES.model_mapping })}
            >
              {t('channel.fillTemplate')}
            </Button>
          </Form.Item>
          <Space wrap size={16} style={{ width: '100%' }}>
            <Form.Item name="tag" label={t('channel.tag')}>
              <Input maxLength={191} style={{ width: 180 }} />
            </Form.Item>
            <Form.Item
              name="priority"
              label={t('channel.priority')}
              rules={[{ type: 'integer', min: -999, message: t('channel.priorityInvalid') }]}
            >
              <InputNumber precision={0} style={{ width: 120 }} />
            </Form.Item>
            <Form.Item
              name="weight"
              label={t('channel.weight')}
              rules={[{ type: 'integer', min: 0, message: t('channel.weightInvalid') }]}
            >
              <InputNumber precision={0} style={{ width: 120 }} />
            </Form.Item>
          </Space>
          <CostFields form={form} />
          {json('setting', t('channel.setting'), t('channel.settingHint'))}
          {json('param_override', t('channel.paramOverride'), t('channel.paramOverrideHint'))}
          {json('status_code_mapping', t('channel.statusCodeMapping'), t('channel.statusCodeMappingHint'))}
          <Form.Item name="test_model" label={t('channel.testModel')}>
            <Input placeholder={t('channel.testModelPlaceholder')} />
          </Form.Item>
          <Form.Item name="auto_ban" valuePropName="checked">
            <Checkbox>{t('channel.autoBan')}</Checkbox>
          </Form.Item>
        </Form>
      </Spin>
    </FormDrawer>
  );
}
