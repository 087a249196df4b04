import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback } from '../../shared/feedback.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useStatus } from '../../shared/status.ts';
import { SELF_KEY } from '../personal/api.ts';
import { redeemCode } from './api.ts';

export function RedeemCard() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const { format } = useQuotaFormat();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');

  const redeem = useMutation({
    mutationFn: (key: string) => redeemCode(key),
    onSuccess: (quota) => {
      setCode('');
      queryClient.invalidateQueries({ queryKey: SELF_KEY });
      feedback.modal?.success({
        title: t('wallet.redeemed'),
        content: t('wallet.redeemedAmount', { quota: format(quota) }),
      });
    },
  });

  const submit = () => {
    const key = code.trim();
    if (!key) {
      feedback.message?.error(t('wallet.emptyCode'));
      return;
    }
    redeem.mutate(key);
  };

  return (
    <Card title={t('wallet.redeemTitle')}>
      <Space.Compact style={{ width: '100%' }}>
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          onPressEnter={submit}
          placeholder={t('wallet.codePlaceholder')}
          allowClear
          aria-label={t('wallet.codePlaceholder')}
        />
        <Button type="primary" loading={redeem.isPending} onClick={submit} data-testid="redeem-submit">
          {t('wallet.redeem')}
        </Button>
      </Space.Compact>
      {status.top_up_link ? (
        <Button
          type="link"
          style={{ paddingInline: 0, marginTop: 8 }}
          href={status.top_up_link}
          target="_blank"
          rel="noopener noreferrer"
        >
          {t('wallet.getCode')}
        </Button>
      ) : (
        <Space size={4} wrap style={{ marginTop: 8 }}>
          <Button type="link" style={{ paddingInline: 0 }} disabled>
            {t('wallet.getCode')}
          </Button>
          <Typography.Text type="secondary" data-testid="get-code-reason">
            {t('wallet.noTopupLinkReason')}
          </Typography.Text>
        </Space>
      )}
    </Card>
  );
}
