import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/client.ts';
import { feedback } from '../../../shared/feedback.tsx';
import { OPTIONS_QUERY_KEY, type OptionMap } from '../api.ts';
import type { FieldDef } from '../fields.ts';
import { OptionSection } from '../OptionSection.tsx';
import { checkNumberMap } from '../validators.ts';
import { effectiveRows } from './effective.ts';
import { rowsFromOptions } from './priceMath.ts';
import { useBuiltInPrices } from './useBuiltInPrices.ts';

const FIELDS: FieldDef[] = [
  'ModelPrice',
  'ModelRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'CompletionRatio',
  'AudioRatio',
  'AudioCompletionRatio',
].map((key) => ({
  key,
  kind: 'json',
  span: 12,
  check: checkNumberMap,
  help: `settings.help.${key}`,
}));

/**
 * The price options as JSON (only what is saved: the built-in tables price every model they leave out, which
 * the note above them says), plus "reset model ratios" to the built-in tables.
 */
export function JsonPrices({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const builtIn = useBuiltInPrices();
  const counts = useMemo(() => {
    const rows = effectiveRows(rowsFromOptions(options), builtIn.rows);
    return {
      saved: rows.filter((r) => r.source !== 'builtin').length,
      builtin: rows.filter((r) => r.source === 'builtin').length,
    };
  }, [options, builtIn.rows]);
  const reset = useMutation({
    mutationFn: () => api.post('/api/option/rest_model_ratio'),
    onSuccess: () => {
      feedback.message?.success(t('settings.pricing.resetDone'));
      client.invalidateQueries({ queryKey: OPTIONS_QUERY_KEY });
    },
  });
  return (
    <>
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 12 }}
        data-testid="pricing-builtin-note"
        title={t('settings.pricing.builtInNote', counts)}
      />
      <OptionSection
        title="settings.pricing.jsonTitle"
        fields={FIELDS}
        options={options}
        actions={
          <Button
            danger
            loading={reset.isPending}
            onClick={() =>
              feedback.modal?.confirm({
                title: t('settings.pricing.resetConfirm'),
                okButtonProps: { danger: true },
                onOk: () => reset.mutateAsync(),
              })
            }
          >
            {t('settings.pricing.reset')}
          </Button>
        }
      />
    </>
  );
}
