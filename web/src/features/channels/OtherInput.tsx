import type { OtherField } from '@modelgate/shared';
import { Button, Form, type FormInstance, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { TEMPLATES } from './templates.ts';

/** The channel form's `other` field as the channel type declares it (packages/shared channel-types). */
export function OtherInput({ field, form }: { field: OtherField; form: FormInstance }) {
  const { t } = useTranslation();
  const text = (key?: string) => (key ? t(`channel.${key}`) : undefined);
  if (field.kind === 'select')
    return (
      <Form.Item name="other" label={text(field.label)} extra={text(field.hint)}>
        <Select options={(field.options ?? []).map((v) => ({ value: v, label: v }))} />
      </Form.Item>
    );
  if (field.kind === 'json') {
    const template = TEMPLATES[field.template as keyof typeof TEMPLATES];
    return (
      <Form.Item label={text(field.label)} extra={text(field.hint)}>
        <Form.Item name="other" noStyle>
          <Input.TextArea autoSize={{ minRows: 1, maxRows: 8 }} style={{ fontFamily: 'monospace' }} />
        </Form.Item>
        {template && (
          <Button
            size="small"
            type="link"
            style={{ paddingLeft: 0 }}
            onClick={() => form.setFieldsValue({ other: template })}
          >
            {t('channel.fillTemplate')}
          </Button>
        )}
      </Form.Item>
    );
  }
  return (
    <Form.Item name="other" label={text(field.label)} extra={text(field.hint)}>
      <Input placeholder={text(field.placeholder)} />
    </Form.Item>
  );
}
