import { LockOutlined } from '@ant-design/icons';
import { isRootOnlyOption } from '@modelgate/shared';
import {
  Button,
  Card,
  Col,
  ConfigProvider,
  Form,
  Input,
  InputNumber,
  Row,
  Select,
  Space,
  Switch,
  Tag,
  Tooltip,
} from 'antd';
import { type ReactNode, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showCheckInput } from '../../shared/feedback.tsx';
import { JsonTextArea, jsonRule } from '../../shared/JsonTextArea.tsx';
import { useSession } from '../../shared/session.ts';
import { type OptionMap, useSaveOptions } from './api.ts';
import { changedOptions, type FieldDef, labelKey, toFormValue } from './fields.ts';

export interface OptionSectionProps {
  /** i18n key of the card title. */
  title: string;
  fields: FieldDef[];
  options: OptionMap;
  /** Shown above the fields (banners, notes). */
  intro?: ReactNode;
  /** Extra buttons beside Save. */
  actions?: ReactNode;
  /** Whole-section check before saving; returns an i18n key of the problem. */
  validate?: (values: Record<string, unknown>) => string | undefined;
  /** Render under the fields; gets the form to read or fill values (e.g. OIDC discovery). */
  children?: (form: ReturnType<typeof Form.useForm>[0]) => ReactNode;
}

function defaultSpan(field: FieldDef) {
  if (field.span) return field.span;
  if (field.kind === 'textarea' || field.kind === 'json') return 24;
  if (field.kind === 'switch' || field.kind === 'number') return 8;
  return 12;
}

/**
 * One settings card: the fields of some options and a Save button that sends only what changed, one PUT per
 * key (the same behaviour for every panel of the settings page).
 */
export function OptionSection({
  title,
  fields,
  options,
  intro,
  actions,
  validate,
  children,
}: OptionSectionProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const { save, saving } = useSaveOptions();
  // Options only root may change are shown read-only to other admins (the server refuses them too).
  const { isRoot } = useSession();
  const locked = (key: string) => !isRoot && isRootOnlyOption(key);
  const anyLocked = fields.some((f) => locked(f.key));
  const initial = useMemo(
    () => Object.fromEntries(fields.map((f) => [f.key, toFormValue(f, options[f.key])])),
    [fields, options],
  );

  const onSave = async () => {
    let values: Record<string, unknown>;
    try {
      values = await form.validateFields();
    } catch {
      showCheckInput();
      return;
    }
    const problem = validate?.(values);
    if (problem) {
      feedback.message?.error(t(problem));
      return;
    }
    const ok = await save(changedOptions(fields, values, options));
    if (ok) for (const f of fields) if (f.kind === 'secret') form.setFieldValue(f.key, '');
  };

  return (
    <Card
      title={t(title)}
      size="small"
      style={{ marginBottom: 16 }}
      extra={
        anyLocked && (
          <Tooltip title={t('settings.rootOnlyNote')}>
            <Tag icon={<LockOutlined />} data-testid="root-only-note" style={{ marginInlineEnd: 0 }}>
              {t('settings.rootOnlyTag')}
            </Tag>
          </Tooltip>
        )
      }
    >
      {intro}
      <Form form={form} layout="vertical" initialValues={initial} key={JSON.stringify(initial)}>
        <Row gutter={16}>
          {fields.map((field) => (
            <Col key={field.key} xs={24} md={defaultSpan(field)}>
              {locked(field.key) ? (
                <ConfigProvider componentDisabled>
                  <FieldItem field={field} form={form} disabled />
                </ConfigProvider>
              ) : (
                <FieldItem field={field} form={form} disabled={false} />
              )}
            </Col>
          ))}
        </Row>
        {children?.(form)}
      </Form>
      <Space wrap>
        <Button
          type="primary"
          onClick={onSave}
          loading={saving}
          disabled={fields.every((f) => locked(f.key))}
          data-testid={`save-${title}`}
        >
          {t('settings.saveSection', { name: t(title) })}
        </Button>
        {actions}
      </Space>
    </Card>
  );
}

function FieldItem({
  field,
  form,
  disabled,
}: {
  field: FieldDef;
  form: ReturnType<typeof Form.useForm>[0];
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const label = t(labelKey(field));
  const extra = field.help ? t(field.help) : undefined;
  const rules = [
    ...(field.kind === 'json' ? [jsonRule] : []),
    ...(field.check
      ? [
          {
            validator: (_: unknown, v: unknown) =>
              field.check?.(v) ? Promise.reject(new Error(t(field.check(v) as string))) : Promise.resolve(),
          },
        ]
      : []),
  ];
  const common = { name: field.key, label, extra, rules: disabled ? [] : rules };
  switch (field.kind) {
    case 'switch':
      return (
        <Form.Item {...common} valuePropName="checked">
          <Switch
            aria-label={label}
            onChange={(checked) => {
              if (checked || !field.confirmOff) return;
              feedback.modal?.confirm({
                title: t(field.confirmOff),
                onCancel: () => form.setFieldValue(field.key, true),
              });
            }}
          />
        </Form.Item>
      );
    case 'number':
      return (
        <Form.Item {...common}>
          <InputNumber
            precision={field.float || (field.step !== undefined && field.step < 1) ? undefined : 0}
            style={{ width: '100%' }}
            min={field.min}
            max={field.max}
            step={field.step}
            placeholder={field.placeholder}
          />
        </Form.Item>
      );
    case 'textarea':
      return (
        <Form.Item {...common}>
          <Input.TextArea autoSize={{ minRows: 3, maxRows: 12 }} placeholder={field.placeholder} />
        </Form.Item>
      );
    case 'json':
      return (
        <Form.Item {...common} validateTrigger={['onChange', 'onBlur']}>
          <JsonTextArea inlineError={false} placeholder={field.placeholder} />
        </Form.Item>
      );
    case 'secret':
      return (
        <Form.Item {...common}>
          <Input.Password
            autoComplete="new-password"
            placeholder={field.placeholder ?? t('settings.secretPlaceholder')}
          />
        </Form.Item>
      );
    case 'tags':
      return (
        <Form.Item {...common}>
          <Select
            mode="tags"
            tokenSeparators={[',', ' ']}
            open={false}
            placeholder={field.placeholder}
            aria-label={label}
          />
        </Form.Item>
      );
    case 'select':
      return (
        <Form.Item {...common}>
          <Select options={field.choices?.map((c) => ({ value: c.value, label: t(c.label) }))} />
        </Form.Item>
      );
    default:
      return (
        <Form.Item {...common}>
          <Input placeholder={field.placeholder} />
        </Form.Item>
      );
  }
}
