import { Button, Col, DatePicker, Form, Input, InputNumber, Row, Select, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import type { LogFilters } from './api.ts';

interface FormValues {
  range?: [Dayjs | null, Dayjs | null] | null;
  type: number;
  token_name?: string;
  model_name?: string;
  group?: string;
  username?: string;
  channel?: number | null;
}

/** The default window: from today 00:00 to an hour from now. */
export function defaultFilters(): LogFilters {
  return {
    type: 0,
    start_timestamp: dayjs().startOf('day').unix(),
    end_timestamp: dayjs().add(1, 'hour').unix(),
  };
}

const toValues = (f: LogFilters): FormValues => ({
  range: [
    f.start_timestamp ? dayjs.unix(f.start_timestamp) : null,
    f.end_timestamp ? dayjs.unix(f.end_timestamp) : null,
  ],
  type: f.type,
  token_name: f.token_name,
  model_name: f.model_name,
  group: f.group,
  username: f.username,
  channel: f.channel,
});

const fromValues = (v: FormValues): LogFilters => ({
  type: v.type ?? 0,
  start_timestamp: v.range?.[0]?.unix(),
  end_timestamp: v.range?.[1]?.unix(),
  token_name: v.token_name?.trim() || undefined,
  model_name: v.model_name?.trim() || undefined,
  group: v.group?.trim() || undefined,
  username: v.username?.trim() || undefined,
  channel: v.channel ?? undefined,
});

export function LogFilterForm({
  admin,
  value,
  onSearch,
}: {
  admin: boolean;
  value: LogFilters;
  onSearch: (f: LogFilters) => void;
}) {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  const [form] = Form.useForm<FormValues>();
  const col = { xs: 12, sm: 12, lg: 8, xl: 6 };
  return (
    <Form<FormValues>
      form={form}
      layout="vertical"
      initialValues={toValues(value)}
      onFinish={(v) => onSearch(fromValues(v))}
    >
      <Row gutter={12}>
        <Col xs={24} lg={16} xl={12}>
          <Form.Item name="range" label={t('log.timeRange')}>
            <DatePicker.RangePicker
              showTime
              format={isMobile ? 'MM-DD HH:mm' : undefined}
              style={{ width: '100%' }}
              allowEmpty={[true, true]}
            />
          </Form.Item>
        </Col>
        <Col {...col}>
          <Form.Item name="type" label={t('log.type')}>
            <Select options={[0, 1, 2, 3, 4, 5].map((n) => ({ value: n, label: t(`log.type${n}`) }))} />
          </Form.Item>
        </Col>
        <Col {...col}>
          <Form.Item name="token_name" label={t('log.tokenName')}>
            <Input allowClear />
          </Form.Item>
        </Col>
        <Col {...col}>
          <Form.Item name="model_name" label={t('log.modelName')}>
            <Input allowClear />
          </Form.Item>
        </Col>
        <Col {...col}>
          <Form.Item name="group" label={t('log.group')}>
            <Input allowClear />
          </Form.Item>
        </Col>
        {admin && (
          <Col {...col}>
            <Form.Item name="username" label={t('log.username')}>
              <Input allowClear />
            </Form.Item>
          </Col>
        )}
        {admin && (
          <Col {...col}>
            <Form.Item name="channel" label={t('log.channel')}>
              <InputNumber min={1} precision={0} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
        )}
      </Row>
      <Space style={{ marginBottom: 12 }}>
        <Button type="primary" htmlType="submit">
          {t('common.search')}
        </Button>
        <Button
          onClick={() => {
            const d = defaultFilters();
            form.setFieldsValue({
              ...toValues(d),
              token_name: undefined,
              model_name: undefined,
              group: undefined,
              username: undefined,
              channel: undefined,
            });
            onSearch(d);
          }}
        >
          {t('common.reset')}
        </Button>
      </Space>
    </Form>
  );
}
