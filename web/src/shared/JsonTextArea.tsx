import { Input } from 'antd';
import type { Rule } from 'antd/es/form';
import type { TextAreaProps } from 'antd/es/input';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import i18n from '../i18n/index.ts';

export function isValidJson(text: string | undefined | null): boolean {
  if (!text?.trim()) return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A Form rule: blank or valid JSON, else 不是合法的 JSON 字符串. */
export const jsonRule: Rule = {
  validator: (_, value: string | undefined) =>
    isValidJson(value) ? Promise.resolve() : Promise.reject(new Error(i18n.t('common.invalidJson'))),
  validateTrigger: 'onBlur',
};

/**
 * A text area for JSON that checks the text when it loses focus and shows 不是合法的 JSON 字符串.
 * Inside a Form.Item prefer `rules={[jsonRule]} validateTrigger={['onChange', 'onBlur']}` and `inlineError={false}`.
 */
export function JsonTextArea({
  onBlur,
  onChange,
  status,
  inlineError = true,
  ...rest
}: TextAreaProps & { inlineError?: boolean }) {
  const { t } = useTranslation();
  const [invalid, setInvalid] = useState(false);
  return (
    <>
      <Input.TextArea
        autoSize={{ minRows: 4, maxRows: 16 }}
        style={{ fontFamily: 'monospace' }}
        {...rest}
        status={invalid && inlineError ? 'error' : status}
        onBlur={(e) => {
          setInvalid(!isValidJson(e.target.value));
          onBlur?.(e);
        }}
        onChange={(e) => {
          if (invalid && isValidJson(e.target.value)) setInvalid(false);
          onChange?.(e);
        }}
      />
      {invalid && inlineError && (
        <div style={{ color: 'var(--ant-color-error)', marginTop: 4 }}>{t('common.invalidJson')}</div>
      )}
    </>
  );
}
