import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PriceSource } from './effective.ts';

const COLOR: Record<PriceSource, string> = { builtin: 'default', saved: 'green', override: 'orange' };

/** Where a model's price comes from: the built-in table, the saved options, or options over a built-in price. */
export function PriceSourceTag({ source }: { source: PriceSource }) {
  const { t } = useTranslation();
  return (
    <Tag color={COLOR[source]} title={t(`settings.pricing.sourceHelp.${source}`)}>
      {t(`settings.pricing.sourceName.${source}`)}
    </Tag>
  );
}
