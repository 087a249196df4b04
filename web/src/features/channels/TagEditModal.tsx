import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Form, Input, Modal, Select } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showCheckInput } from '../../shared/feedback.tsx';
import { JsonTextArea, jsonRule } from '../../shared/JsonTextArea.tsx';
import { editTag } from './api.ts';
import { type Row, splitList } from './rows.ts';

interface Values {
  new_tag: string;
  models: string[];
  groups: string[];
  model_mapping: string;
}

/** Edits every channel of a tag: new name (empty dissolves), models, groups, mapping; blank keeps as is. */
export function TagEditModal({ row, groups, onClose }: { row?: Row; groups: string[]; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<Values>();
  const tag = row?.tag ?? '';
  useEffect(() => {
    if (row) form.setFieldsValue({ new_tag: row.tag, models: [], groups: [], model_mapping: '' });
  }, [row, form]);
  const save = useMutation({
    mutationFn: (body: Parameters<typeof editTag>[0]) => editTag(body),
    onSuccess: () => {
      feedback.message?.success(t('channel.tagSaved'));
      queryClient.invalidateQueries({ queryKey: ['channels'] });
      onClose();
    },
  });
  const submit = (v: Values) => {
    const body: Parameters<typeof editTag>[0] = { tag };
    if ((v.new_tag ?? '').trim() !== tag) body.new_tag = (v.new_tag ?? '').trim();
    if (v.models?.length) body.models = v.models.join(',');
    if (v.groups?.length) body.groups = v.groups.join(',');
    if (v.model_mapping?.trim()) body.model_mapping = v.model_mapping.trim();
    if (Object.keys(body).length === 1) {
      feedback.message?.warning(t('channel.tagNoChange'));
      return;
    }
    save.mutate(body);
  };
  const modelOptions = row ? splitList(row.models).map((m) => ({ value: m, label: m })) : [];
  return (
    <Modal
      open={!!row}
      title={t('channel.tagEditTitle', { tag })}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={save.isPending}
      destroyOnHidden
    >
      <Form<Values>
        form={form}
        layout="vertical"
        name="tag-edit"
        onFinish={submit}
        onFinishFailed={showCheckInput}
        scrollToFirstError
      >
        <Form.Item name="new_tag" label={t('channel.tagNewName')} extra={t('channel.tagNewNameHint')}>
          <Input allowClear maxLength={191} />
        </Form.Item>
        <Form.Item name="models" label={t('channel.tagModels')} extra={t('channel.tagBlankKeeps')}>
          <Select
            mode="tags"
            allowClear
            options={modelOptions}
            tokenSeparators={[',']}
            maxTagCount="responsive"
          />
        </Form.Item>
        <Form.Item name="groups" label={t('channel.tagGroups')} extra={t('channel.tagBlankKeeps')}>
          <Select
            mode="tags"
            allowClear
            options={groups.map((g) => ({ value: g, label: g }))}
            tokenSeparators={[',']}
          />
        </Form.Item>
        <Form.Item
          name="model_mapping"
          label={t('channel.tagMapping')}
          extra={t('channel.tagBlankKeeps')}
          rules={[jsonRule]}
          validateTrigger={['onChange', 'onBlur']}
        >
          <JsonTextArea inlineError={false} placeholder='{"gpt-4o": "gpt-4o-2024-08-06"}' />
        </Form.Item>
      </Form>
    </Modal>
  );
}
