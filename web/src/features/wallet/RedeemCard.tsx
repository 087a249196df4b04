import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Input, Space } from 'antd';
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

  const openTopupLink = () => {
    if (!status.top_up_link) {
      feedback.message?.error(t('wallet.noTopupLink'));
      return;
    }
    window.open(status.top_up_link, '_blank', 'noopener');
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
      <Button type="link" style={{ paddingInline: 0, marginTop: 8 }} onClick={openTopupLink}>
        {t('wallet.getCode')}
      </Button>
    </Card>
  );
}
