import { CopyOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Col, Form, Input, InputNumber, Modal, Row, Space, Statistic, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { copyText } from '../../shared/copyText.ts';
import { feedback } from '../../shared/feedback.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { SELF_KEY, type SelfUser } from './api.ts';

/** Referral link and rewards; pending rewards move to the balance with a transfer (minimum one unit). */
export function InviteCard({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { format, quotaPerUnit } = useQuotaFormat();
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState<number | null>(null);
  const aff = useQuery({ queryKey: ['user', 'aff'], queryFn: () => api.get<string>('/api/user/aff') });
  const link = aff.data ? `${window.location.origin}/register?aff=${aff.data}` : '';

  const transfer = useMutation({
    mutationFn: (quota: number) => api.post('/api/user/aff_transfer', { quota }),
    onSuccess: () => {
      feedback.message?.success(t('personal.transferDone'));
      setOpen(false);
      queryClient.invalidateQueries({ queryKey: SELF_KEY });
    },
  });

  const submit = () => {
    if (!amount || amount < quotaPerUnit) {
      feedback.message?.error(t('personal.transferMin', { amount: format(quotaPerUnit) }));
      return;
    }
    if (amount > user.aff_quota) {
      feedback.message?.error(t('personal.transferTooMuch'));
      return;
    }
    transfer.mutate(amount);
  };

  return (
    <Card title={t('personal.invite')}>
      <Row gutter={[16, 16]}>
        <Col xs={8}>
          <Statistic title={t('personal.affPending')} value={format(user.aff_quota)} />
        </Col>
        <Col xs={8}>
          <Statistic title={t('personal.affTotal')} value={format(user.aff_history_quota)} />
        </Col>
        <Col xs={8}>
          <Statistic title={t('personal.affCount')} value={user.aff_count} />
        </Col>
      </Row>
      <Typography.Text type="secondary" style={{ display: 'block', marginTop: 16, marginBottom: 4 }}>
        {t('personal.inviteLink')}
      </Typography.Text>
      <Space.Compact style={{ width: '100%' }}>
        <Input readOnly value={link} data-testid="invite-link" onFocus={(e) => e.target.select()} />
        <Button
          icon={<CopyOutlined />}
          disabled={!link}
          onClick={() => copyText(link)}
          aria-label={t('common.copy')}
        />
      </Space.Compact>
      <Button style={{ marginTop: 12 }} disabled={user.aff_quota <= 0} onClick={() => setOpen(true)}>
        {t('personal.transfer')}
      </Button>
      <Modal
        title={t('personal.transfer')}
        open={open}
        onCancel={() => setOpen(false)}
        onOk={submit}
        confirmLoading={transfer.isPending}
        destroyOnHidden
      >
        <Form layout="vertical">
          <Form.Item label={t('personal.affPending')}>
            <Typography.Text strong>{format(user.aff_quota)}</Typography.Text>
          </Form.Item>
          <Form.Item
            label={t('personal.transferAmount')}
            extra={t('personal.transferMin', { amount: format(quotaPerUnit) })}
          >
            <InputNumber
              style={{ width: '100%' }}
              min={0}
              max={user.aff_quota}
              precision={0}
              value={amount}
              onChange={(v) => setAmount(v)}
              placeholder={String(quotaPerUnit)}
            />
          </Form.Item>
          {amount ? <Typography.Text type="secondary">= {format(amount)}</Typography.Text> : null}
        </Form>
      </Modal>
    </Card>
  );
}
