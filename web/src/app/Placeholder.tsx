import { Card, Empty } from 'antd';
import { useTranslation } from 'react-i18next';

/** Stands in for a page whose feature is not built yet, so the route table always builds. */
export function Placeholder({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Card title={t(titleKey)}>
      <Empty description={t('placeholder.soon')} />
    </Card>
  );
}
