import { Button, Modal, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { type MarginFilter, marginRate, percent, useMargin } from './api.ts';
// The charts library loads with the details, not with the log page.
import { LazyMarginPanel } from './LazyMarginPanel.tsx';

/** The log page's cost and margin tags (admins), with the breakdown by day, channel and model a click away. */
export function MarginStats({ filter }: { filter: MarginFilter & { type?: number } }) {
  const { t } = useTranslation();
  const { format } = useQuotaFormat();
  const isMobile = useIsMobile();
  const [open, setOpen] = useState(false);
  const { type: _type, ...f } = filter;
  const q = useMargin(f);
  const r = q.data;
  if (!r) return null;
  const tag = { fontSize: 14, padding: '4px 8px' };
  return (
    // Its own row of tags, spaced as the log page's (the page's Space sees this component as one item).
    <Space wrap size={[8, 8]}>
      <Tag color="orange" style={tag} data-testid="log-stat-cost">
        {t('cost.statCost', { cost: format(r.cost) })}
      </Tag>
      <Tag color={r.margin < 0 ? 'red' : 'green'} style={tag} data-testid="log-stat-margin">
        {t('cost.statMargin', { margin: format(r.margin), rate: percent(marginRate(r)) })}
      </Tag>
      <Button size="small" type="link" onClick={() => setOpen(true)} data-testid="log-margin-details">
        {t('cost.details')}
      </Button>
      <Modal
        open={open}
        onCancel={() => setOpen(false)}
        footer={null}
        width={isMobile ? '100%' : 960}
        title={t('cost.details')}
        destroyOnHidden
      >
        <LazyMarginPanel filter={f} />
      </Modal>
    </Space>
  );
}
