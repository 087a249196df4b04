import { Alert, Card, Col, Row, Statistic } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useSelf } from '../personal/api.ts';
import { OnlineTopupCard } from './OnlineTopupCard.tsx';
import { OrdersCard } from './OrdersCard.tsx';
import { RedeemCard } from './RedeemCard.tsx';

/** 我的钱包: balance, redeem a code, online top-up, and the top-up orders. */
export default function WalletPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const self = useSelf();
  const { format } = useQuotaFormat();
  const user = self.data;

  return (
    <Row gutter={[16, 16]}>
      {params.get('pay') === 'return' && (
        <Col span={24}>
          <Alert type="info" showIcon closable message={t('wallet.returned')} />
        </Col>
      )}
      <Col span={24}>
        <Card title={t('wallet.title')} loading={self.isLoading}>
          <Row gutter={[16, 16]}>
            <Col xs={24} sm={8}>
              <Statistic
                title={t('wallet.balance')}
                value={user ? format(user.quota) : '-'}
                valueStyle={{ color: '#1677ff' }}
                data-testid="wallet-balance"
              />
            </Col>
            <Col xs={12} sm={8}>
              <Statistic title={t('wallet.used')} value={user ? format(user.used_quota) : '-'} />
            </Col>
            <Col xs={12} sm={8}>
              <Statistic title={t('wallet.requests')} value={user?.request_count ?? '-'} />
            </Col>
          </Row>
        </Card>
      </Col>
      <Col xs={24} lg={12}>
        <RedeemCard />
      </Col>
      <Col xs={24} lg={12}>
        <OnlineTopupCard />
      </Col>
      <Col span={24}>
        <OrdersCard />
      </Col>
    </Row>
  );
}
