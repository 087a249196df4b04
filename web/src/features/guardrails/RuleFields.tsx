import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  AutoComplete,
  Button,
  Checkbox,
  Col,
  Form,
  Input,
  InputNumber,
  Row,
  Select,
  Space,
  Typography,
  theme,
} from 'antd';
import { useTranslation } from 'react-i18next';
import { MODERATION_CATEGORIES, MODES, PII_KINDS, RULE_TYPES, SIDES } from './model.ts';

const ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** One rule of a policy: its id, type, side and mode, then what its type needs. */
export function RuleFields({ path, onRemove }: { path: Array<string | number>; onRemove: () => void }) {
  const { t } = useTranslation();
  const form = Form.useFormInstance();
  const type = Form.useWatch([...path, 'type'], form);
  const name = (k: string) => [path[path.length - 1], k];
  const moderation = type === 'moderation';
  const { token } = theme.useToken();
  const options = (values: readonly string[], prefix: string) =>
    values.map((v) => ({ value: v, label: t(`${prefix}.${v}`) }));

  return (
    <div
      data-testid="guardrail-rule"
      style={{
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
        padding: '12px 12px 0',
        marginBottom: 12,
      }}
    >
      <Row gutter={12} align="bottom">
        <Col xs={24} sm={12} md={5}>
          <Form.Item
            label={t('guardrails.rule.id')}
            name={name('id')}
            rules={[{ required: true, pattern: ID_PATTERN, message: t('guardrails.rule.idInvalid') }]}
          >
            <Input placeholder="pii-mask" />
          </Form.Item>
        </Col>
        <Col xs={24} sm={12} md={5}>
          <Form.Item label={t('guardrails.rule.type')} name={name('type')} rules={[{ required: true }]}>
            <Select
              options={options(RULE_TYPES, 'guardrails.type')}
              onChange={(v) => {
                if (v === 'moderation') {
                  form.setFieldValue([...path, 'on'], 'prompt');
                  form.setFieldValue([...path, 'mode'], 'block');
                }
              }}
            />
          </Form.Item>
        </Col>
        <Col xs={12} md={5}>
          <Form.Item label={t('guardrails.rule.on')} name={name('on')}>
            <Select options={options(SIDES, 'guardrails.side')} disabled={moderation} />
          </Form.Item>
        </Col>
        <Col xs={12} md={5}>
          <Form.Item label={t('guardrails.rule.mode')} name={name('mode')}>
            <Select options={options(MODES, 'guardrails.mode')} disabled={moderation} />
          </Form.Item>
        </Col>
        <Col xs={24} md={4} style={{ textAlign: 'end' }}>
          <Form.Item>
            <Button
              danger
              icon={<DeleteOutlined />}
              onClick={onRemove}
              aria-label={t('guardrails.rule.remove')}
            >
              {t('guardrails.rule.remove')}
            </Button>
          </Form.Item>
        </Col>
      </Row>
      {type === 'words' && (
        <Typography.Paragraph type="secondary">{t('guardrails.rule.wordsNote')}</Typography.Paragraph>
      )}
      {type === 'regex' && (
        <Row gutter={12} align="bottom">
          <Col xs={24} md={12}>
            <Form.Item
              label={t('guardrails.rule.pattern')}
              name={name('pattern')}
              rules={[{ required: true, message: t('guardrails.rule.patternRequired') }]}
            >
              <Input placeholder="project\s+nightingale" style={{ fontFamily: 'monospace' }} />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item label={t('guardrails.rule.replacement')} name={name('replacement')}>
              <Input placeholder="[REDACTED]" />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item name={name('ignoreCase')} valuePropName="checked">
              <Checkbox>{t('guardrails.rule.ignoreCase')}</Checkbox>
            </Form.Item>
          </Col>
        </Row>
      )}
      {type === 'pii' && (
        <Form.Item
          label={t('guardrails.rule.detectors')}
          name={name('detectors')}
          rules={[{ required: true, message: t('guardrails.rule.detectorsRequired') }]}
        >
          <Select mode="multiple" options={options(PII_KINDS, 'guardrails.pii')} />
        </Form.Item>
      )}
      {moderation && <ModerationFields path={path} />}
    </div>
  );
}

function ModerationFields({ path }: { path: Array<string | number> }) {
  const { t } = useTranslation();
  const name = (k: string) => [path[path.length - 1], k];
  return (
    <>
      <Row gutter={12}>
        <Col xs={12} md={8}>
          <Form.Item
            label={t('guardrails.rule.channel')}
            name={name('channel_id')}
            extra={t('guardrails.rule.channelHelp')}
            rules={[{ required: true, message: t('guardrails.rule.channelRequired') }]}
          >
            <InputNumber min={1} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col xs={12} md={8}>
          <Form.Item label={t('guardrails.rule.model')} name={name('model')}>
            <Input placeholder="omni-moderation-latest" />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item label={t('guardrails.rule.thresholds')} extra={t('guardrails.rule.thresholdsHelp')}>
        <Form.List name={name('thresholds')}>
          {(items, { add, remove }) => (
            <Space direction="vertical" style={{ width: '100%' }}>
              {items.map((item) => (
                <Space key={item.key} wrap>
                  <Form.Item name={[item.name, 'category']} noStyle rules={[{ required: true }]}>
                    <AutoComplete
                      style={{ width: 220 }}
                      options={MODERATION_CATEGORIES.map((c) => ({ value: c }))}
                      placeholder="violence"
                    />
                  </Form.Item>
                  <Form.Item name={[item.name, 'score']} noStyle rules={[{ required: true }]}>
                    <InputNumber min={0} max={1} step={0.05} style={{ width: 110 }} />
                  </Form.Item>
                  <Button
                    icon={<DeleteOutlined />}
                    onClick={() => remove(item.name)}
                    aria-label={t('guardrails.rule.removeThreshold')}
                  />
                </Space>
              ))}
              <Button icon={<PlusOutlined />} onClick={() => add({ category: '', score: 0.7 })}>
                {t('guardrails.rule.addThreshold')}
              </Button>
            </Space>
          )}
        </Form.List>
      </Form.Item>
    </>
  );
}
