import { Button, DatePicker, Form, Input, Select, Space } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { AUDIT_ENTITIES, type AuditFilters } from './api.ts';

interface FormValues {
  username?: string;
  entity?: string;
  target?: string;
  action?: string;
  range?: [Dayjs | null, Dayjs | null] | null;
}

const text = (v?: string) => v?.trim() || undefined;

/** The audit log's filters: who, which entity, which target, which action, when. */
export function AuditFilterForm({ onSearch }: { onSearch: (f: AuditFilters) => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FormValues>();
  const isMobile = useIsMobile();
  // On a phone every filter takes the whole width, so nothing runs off the screen.
  const width = (px: number) => (isMobile ? '100%' : px);
  const item = isMobile ? { style: { width: '100%', marginInlineEnd: 0 } } : {};
  const submit = (v: FormValues) =>
    onSearch({
      username: text(v.username),
      entity: v.entity || undefined,
      target: text(v.target),
      action: text(v.action),
      start_timestamp: v.range?.[0]?.unix(),
      end_timestamp: v.range?.[1]?.unix(),
    });
  return (
    <Form form={form} layout="inline" onFinish={submit} style={{ rowGap: 8, marginBottom: 16 }}>
      <Form.Item name="username" {...item}>
        <Input allowClear placeholder={t('audit.username')} style={{ width: width(160) }} />
      </Form.Item>
      <Form.Item name="entity" {...item}>
        <Select
          allowClear
          placeholder={t('audit.anyEntity')}
          style={{ width: width(160) }}
          options={AUDIT_ENTITIES.map((e) => ({ value: e, label: t(`audit.entities.${e}`) }))}
        />
      </Form.Item>
      <Form.Item name="target" {...item}>
        <Input allowClear placeholder={t('audit.targetPlaceholder')} style={{ width: width(180) }} />
      </Form.Item>
      <Form.Item name="action" {...item}>
        <Input allowClear placeholder={t('audit.actionPlaceholder')} style={{ width: width(220) }} />
      </Form.Item>
      <Form.Item name="range" {...item}>
        <DatePicker.RangePicker showTime style={{ width: isMobile ? '100%' : undefined }} />
      </Form.Item>
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit">
            {t('common.search')}
          </Button>
          <Button
            onClick={() => {
              form.resetFields();
              onSearch({});
            }}
          >
            {t('common.reset')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}
