import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Col, Empty, Form, Input, InputNumber, Row, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { showCheckInput } from '../../shared/feedback.tsx';
import { type OptionMap, useSaveOptions } from '../settings/api.ts';
import { DEFAULT_WINDOW, fromDrafts, type PolicyDraft, toDrafts } from './model.ts';
import { RuleFields } from './RuleFields.tsx';

export const POLICIES_KEY = 'guardrails.policies';
const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** The named guardrail policies: each a list of rules and the window a streamed answer may be held back. */
export function PoliciesSection({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ policies: PolicyDraft[] }>();
  const { save, saving } = useSaveOptions();
  const saved = options[POLICIES_KEY] ?? '{}';
  const initial = useMemo(() => ({ policies: toDrafts(saved) }), [saved]);

  const onSave = async () => {
    let values: { policies: PolicyDraft[] };
    try {
      values = await form.validateFields();
    } catch {
      showCheckInput();
      return;
    }
    const next = fromDrafts(values.policies ?? []);
    await save(next === JSON.stringify(JSON.parse(saved || '{}')) ? [] : [[POLICIES_KEY, next]]);
  };

  return (
    <Card title={t('guardrails.policies.title')} size="small" style={{ marginBottom: 16 }}>
      <Typography.Paragraph type="secondary">{t('guardrails.policies.intro')}</Typography.Paragraph>
      <Form form={form} name="guardrailPolicies" layout="vertical" initialValues={initial} key={saved}>
        <Form.List name="policies">
          {(policies, { add, remove }) => (
            <>
              {policies.length === 0 && (
                <Empty description={t('guardrails.policies.empty')} style={{ marginBottom: 16 }} />
              )}
              {policies.map((policy) => (
                <Card
                  key={policy.key}
                  size="small"
                  type="inner"
                  style={{ marginBottom: 12 }}
                  data-testid="guardrail-policy"
                  title={
                    <Row gutter={12} align="middle" wrap={false} style={{ paddingTop: 8 }}>
                      <Col flex="auto">
                        <Form.Item
                          name={[policy.name, 'name']}
                          label={t('guardrails.policies.name')}
                          rules={[
                            {
                              required: true,
                              pattern: NAME_PATTERN,
                              message: t('guardrails.rule.idInvalid'),
                            },
                          ]}
                        >
                          <Input placeholder="strict" />
                        </Form.Item>
                      </Col>
                      <Col flex="200px">
                        <Form.Item
                          name={[policy.name, 'window']}
                          label={t('guardrails.policies.window')}
                          tooltip={t('guardrails.policies.windowHelp')}
                          rules={[{ required: true }]}
                        >
                          <InputNumber min={8} max={1024} precision={0} style={{ width: '100%' }} />
                        </Form.Item>
                      </Col>
                    </Row>
                  }
                  extra={
                    <Button
                      danger
                      type="text"
                      icon={<DeleteOutlined />}
                      onClick={() => remove(policy.name)}
                      aria-label={t('guardrails.policies.remove')}
                    />
                  }
                >
                  <Form.List name={[policy.name, 'rules']}>
                    {(rules, rulesOps) => (
                      <>
                        {rules.map((rule) => (
                          <RuleFields
                            key={rule.key}
                            path={['policies', policy.name, 'rules', rule.name]}
                            onRemove={() => rulesOps.remove(rule.name)}
                          />
                        ))}
                        <Button
                          icon={<PlusOutlined />}
                          onClick={() =>
                            rulesOps.add({
                              id: '',
                              type: 'pii',
                              on: 'both',
                              mode: 'mask',
                              detectors: ['card', 'email'],
                            })
                          }
                        >
                          {t('guardrails.rule.add')}
                        </Button>
                      </>
                    )}
                  </Form.List>
                </Card>
              ))}
              <Button
                icon={<PlusOutlined />}
                onClick={() => add({ name: '', window: DEFAULT_WINDOW, rules: [] })}
                style={{ marginBottom: 16 }}
              >
                {t('guardrails.policies.add')}
              </Button>
            </>
          )}
        </Form.List>
      </Form>
      <Button type="primary" onClick={onSave} loading={saving} data-testid="save-guardrail-policies">
        {t('guardrails.policies.save')}
      </Button>
    </Card>
  );
}
