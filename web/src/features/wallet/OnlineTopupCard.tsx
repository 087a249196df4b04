import { AlipayCircleOutlined, WechatOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, InputNumber, Space, Statistic, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import { quotaPerUnitOf, useStatus } from '../../shared/status.ts';
import { useCountdown } from '../../shared/useCountdown.ts';
import { SELF_KEY } from '../personal/api.ts';
import { createPayment, type PayMethod, quoteAmount } from './api.ts';
import { submitPayForm } from './payForm.ts';

/** The quote follows the amount after the user stops typing, not on every keystroke. */
function useDebounced<T>(value: T, ms = 400): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setV(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return v;
}

export function OnlineTopupCard() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const queryClient = useQueryClient();
  const inCurrency = status.display_in_currency !== false;
  const unit = inCurrency ? 1 : quotaPerUnitOf(status);
  const min = Math.max(1, Number(status.min_topup) || 1) * unit;
  const enabled = status.enable_online_topup === true;
  const [amount, setAmount] = useState<number>(min);
  const debounced = useDebounced(amount);
  const countdown = useCountdown(30);
  const presets = [1, 2, 5, 10, 20, 50].map((m) => m * min);

  useEffect(() => setAmount((a) => (a < min ? min : a)), [min]);

  const quote = useQuery({
    queryKey: ['topup-quote', debounced],
    queryFn: () => quoteAmount(debounced),
    enabled: enabled && debounced >= min,
    meta: { silent: true },
    retry: false,
  });

  const pay = useMutation({
    mutationFn: (method: PayMethod) => createPayment(amount, method),
    meta: { silent: true },
    onSuccess: ({ url, ...fields }) => {
      submitPayForm(url, fields);
      countdown.start();
      feedback.message?.info(t('wallet.payOpened'));
    },
    onError: (err) =>
      feedback.message?.error(
        `${t('wallet.requestFailed')}: ${err instanceof ApiFailure ? err.message : String(err)}`,
      ),
  });

  // When the countdown ends the payment has likely been confirmed: refresh the balance and the orders.
  useEffect(() => {
    if (countdown.left === 0) {
      queryClient.invalidateQueries({ queryKey: SELF_KEY });
      queryClient.invalidateQueries({ queryKey: ['topup-orders'] });
    }
  }, [countdown.left, queryClient]);

  const start = async (method: PayMethod) => {
    if (amount < min) {
      feedback.message?.error(t('wallet.belowMin', { min }));
      return;
    }
    // The price of exactly this amount, even if the debounced quote has not caught up with the input yet.
    let money: string;
    try {
      money = await queryClient.fetchQuery({
        queryKey: ['topup-quote', amount],
        queryFn: () => quoteAmount(amount),
        meta: { silent: true },
      });
    } catch (err) {
      feedback.message?.error(
        `${t('wallet.requestFailed')}: ${err instanceof ApiFailure ? err.message : String(err)}`,
      );
      return;
    }
    feedback.modal?.confirm({
      title: t('wallet.confirmTitle'),
      content: (
        <div>
          <div>{t('wallet.confirmAmount', { amount })}</div>
          <div>{t('wallet.confirmPay', { money })}</div>
          <div>
            {t('wallet.confirmMethod', { method: t(method === 'zfb' ? 'wallet.alipay' : 'wallet.wechat') })}
          </div>
        </div>
      ),
      onOk: () => pay.mutate(method),
    });
  };

  const quoteError = quote.error instanceof ApiFailure ? quote.error.message : '';
  const busy = pay.isPending || countdown.running;
  const label = (key: string) => (countdown.running ? t('wallet.waiting', { n: countdown.left }) : t(key));

  return (
    <Card title={t('wallet.onlineTitle')}>
      {!enabled && (
        <Alert type="warning" showIcon message={t('wallet.notEnabled')} style={{ marginBottom: 12 }} />
      )}
      <Space direction="vertical" style={{ width: '100%' }} size={12}>
        <div>
          <Typography.Text style={{ display: 'block' }}>{t('wallet.amount')}</Typography.Text>
          <InputNumber<number>
            aria-label={t('wallet.amount')}
            style={{ width: '100%', marginTop: 4 }}
            min={1}
            precision={0}
            disabled={!enabled}
            value={amount}
            onChange={(v) => setAmount(Math.max(1, Math.floor(Number(v) || 1)))}
            prefix={inCurrency ? '$' : undefined}
          />
          <Typography.Text type="secondary" style={{ fontSize: 12, display: 'block', marginTop: 4 }}>
            {t(inCurrency ? 'wallet.amountHintCurrency' : 'wallet.amountHintQuota')}
          </Typography.Text>
        </div>
        <Space wrap size={[6, 6]}>
          {presets.map((p) => (
            <Button
              key={p}
              size="small"
              disabled={!enabled}
              type={amount === p ? 'primary' : 'default'}
              onClick={() => setAmount(p)}
            >
              {inCurrency ? `$${p}` : p.toLocaleString()}
            </Button>
          ))}
        </Space>
        <Statistic
          data-testid="topup-payable"
          title={t('wallet.payable')}
          value={enabled && !quoteError ? (quote.data ?? '-') : '-'}
          prefix={enabled && quote.data && !quoteError ? '¥' : undefined}
          loading={quote.isFetching}
        />
        {quoteError && <Typography.Text type="danger">{quoteError}</Typography.Text>}
        <Space wrap>
          <Button
            data-testid="pay-zfb"
            type="primary"
            icon={<AlipayCircleOutlined />}
            loading={pay.isPending && pay.variables === 'zfb'}
            disabled={busy || !enabled}
            onClick={() => start('zfb')}
          >
            {label('wallet.alipay')}
          </Button>
          <Button
            data-testid="pay-wx"
            icon={<WechatOutlined />}
            loading={pay.isPending && pay.variables === 'wx'}
            disabled={busy || !enabled}
            onClick={() => start('wx')}
            style={busy || !enabled ? undefined : { color: '#07c160', borderColor: '#07c160' }}
          >
            {label('wallet.wechat')}
          </Button>
        </Space>
        {!enabled && (
          <Typography.Text type="secondary" data-testid="pay-disabled-reason">
            {t('wallet.payDisabledReason')}
          </Typography.Text>
        )}
      </Space>
    </Card>
  );
}
