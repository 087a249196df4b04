import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Col, Form, Input, InputNumber, Row, Select, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { showCheckInput } from '../../shared/feedback.tsx';
import { type OptionMap, useSaveOptions } from '../settings/api.ts';
import { policyNames } from './model.ts';
import { POLICIES_KEY } from './PoliciesSection.tsx';

export const GROUPS_KEY = 'guardrails.group_policies';
export const TOKENS_KEY = 'guardrails.token_policies';

interface Values {
  groups: Array<{ name: string; policy: string }>;
  tokens: Array<{ id: number; policy: string }>;
}

const entries = (value: string | undefined) => {
  try {
    return Object.entries(JSON.parse(value || '{}') as Record<string, string>);
  } catch {
    return [];
  }
};

/** Which policy each group (`*` = every other group) and each token (by id, overriding its group) is under. */
export function AssignmentsSection({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const { save, saving } = useSaveOptions();
  const names = policyNames(options[POLICIES_KEY]);
  const policyChoices = names.map((n) => ({ value: n, label: n }));
  const savedGroups = options[GROUPS_KEY] ?? '{}';
  const savedTokens = options[TOKENS_KEY] ?? '{}';
  const initial = useMemo<Values>(
    () => ({
      groups: entries(savedGroups).map(([name, policy]) => ({ name, policy })),
      tokens: entries(savedTokens).map(([id, policy]) => ({ id: Number(id), policy })),
    }),
    [savedGroups, savedTokens],
  );

  const onSave = async () => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      showCheckInput();
      return;
    }
    const groups = JSON.stringify(Object.fromEntries((v.groups ?? []).map((g) => [g.name.trim(), g.policy])));
    const tokens = JSON.stringify(
      Object.fromEntries((v.tokens ?? []).map((x) => [String(x.id), x.policy ?? ''])),
    );
    const changes: Array<[string, string]> = [];
    if (groups !== JSON.stringify(JSON.parse(savedGroups))) changes.push([GROUPS_KEY, groups]);
    if (tokens !== JSON.stringify(JSON.parse(savedTokens))) changes.push([TOKENS_KEY, tokens]);
    await save(changes);
  };

  const list = (kind: 'groups' | 'tokens') => (
    <Form.List name={kind}>
      {(items, { add, remove }) => (
        <>
          {items.map((item) => (
            <Row key={item.key} gutter={8} wrap={false} data-testid={`guardrail-${kind}-row`}>
              <Col flex="auto">
                {kind === 'groups' ? (
                  <Form.Item name={[item.name, 'name']} rules={[{ required: true, whitespace: true }]}>
                    <Input placeholder={t('guardrails.assign.groupPlaceholder')} />
                  </Form.Item>
                ) : (
                  <Form.Item name={[item.name, 'id']} rules={[{ required: true }]}>
                    <InputNumber
                      min={1}
                      precision={0}
                      placeholder={t('guardrails.assign.tokenPlaceholder')}
                      style={{ width: '100%' }}
                    />
                  </Form.Item>
                )}
              </Col>
              <Col flex="auto">
                <Form.Item name={[item.name, 'policy']} rules={kind === 'groups' ? [{ required: true }] : []}>
                  <Select
                    options={
                      kind === 'tokens'
                        ? [{ value: '', label: t('guardrails.assign.none') }, ...policyChoices]
                        : policyChoices
                    }
                    placeholder={t('guardrails.assign.policy')}
                  />
                </Form.Item>
              </Col>
              <Col flex="none">
                <Button
                  icon={<DeleteOutlined />}
                  onClick={() => remove(item.name)}
                  aria-label={t('guardrails.assign.remove')}
                />
              </Col>
            </Row>
          ))}
          <Button
            icon={<PlusOutlined />}
            onClick={() => add(kind === 'groups' ? { name: '', policy: names[0] } : { policy: '' })}
          >
            {t(kind === 'groups' ? 'guardrails.assign.addGroup' : 'guardrails.assign.addToken')}
          </Button>
        </>
      )}
    </Form.List>
  );

  return (
    <Card title={t('guardrails.assign.title')} size="small" style={{ marginBottom: 16 }}>
      <Form
        form={form}
        name="guardrailAssign"
        layout="vertical"
        initialValues={initial}
        key={savedGroups + savedTokens}
      >
        <Row gutter={24}>
          <Col xs={24} md={12}>
            <h4>{t('guardrails.assign.groups')}</h4>
            <Typography.Paragraph type="secondary">{t('guardrails.assign.groupsHelp')}</Typography.Paragraph>
            {list('groups')}
          </Col>
          <Col xs={24} md={12}>
            <h4>{t('guardrails.assign.tokens')}</h4>
            <Typography.Paragraph type="secondary">{t('guardrails.assign.tokensHelp')}</Typography.Paragraph>
            {list('tokens')}
          </Col>
        </Row>
      </Form>
      <Button
        type="primary"
        onClick={onSave}
        loading={saving}
        style={{ marginTop: 16 }}
        data-testid="save-guardrail-assignments"
      >
        {t('guardrails.assign.save')}
      </Button>
    </Card>
  );
}
