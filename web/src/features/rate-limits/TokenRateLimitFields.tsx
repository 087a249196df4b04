import { RATE_LIMIT_MAX } from '@modelgate/shared';
import { Col, Form, InputNumber, Row } from 'antd';
import { useTranslation } from 'react-i18next';

/** The token form's values for its per-minute limits (0 = no limit). */
export interface TokenRateLimitValues {
  rpm_limit: number;
  tpm_limit: number;
}

export const NO_RATE_LIMITS: TokenRateLimitValues = { rpm_limit: 0, tpm_limit: 0 };

/** What the API gets from the form: a cleared field is no limit. */
export const rateLimitsOf = (v: Partial<TokenRateLimitValues>): TokenRateLimitValues => ({
  rpm_limit: v.rpm_limit ?? 0,
  tpm_limit: v.tpm_limit ?? 0,
});

/** Requests and tokens per minute, side by side (stacked on a phone), inside the token form. */
export function TokenRateLimitFields() {
  const { t } = useTranslation();
  const rule = { type: 'integer' as const, min: 0, max: RATE_LIMIT_MAX, message: t('rateLimits.invalid') };
  return (
    <Row gutter={16}>
      <Col xs={24} sm={12}>
        <Form.Item
          name="rpm_limit"
          label={t('rateLimits.rpm')}
          extra={t('rateLimits.tokenHelp')}
          rules={[rule]}
        >
          <InputNumber min={0} max={RATE_LIMIT_MAX} precision={0} style={{ width: '100%' }} placeholder="0" />
        </Form.Item>
      </Col>
      <Col xs={24} sm={12}>
        <Form.Item
          name="tpm_limit"
          label={t('rateLimits.tpm')}
          extra={t('rateLimits.tpmHelp')}
          rules={[rule]}
        >
          <InputNumber min={0} max={RATE_LIMIT_MAX} precision={0} style={{ width: '100%' }} placeholder="0" />
        </Form.Item>
      </Col>
    </Row>
  );
}
