import {
  CheckCircleFilled,
  CloseCircleOutlined,
  CopyOutlined,
  QuestionCircleOutlined,
} from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Input, Popover, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { requestEnvelope } from '../../api/client.ts';
import { copyText } from '../../shared/copyText.ts';
import { feedback } from '../../shared/feedback.tsx';
import { usePageSize } from '../../shared/PagedTable.tsx';
import { useSession } from '../../shared/session.ts';
import {
  completionPerMillion,
  fuzzyMatch,
  type PricingRow,
  perCall,
  promptPerMillion,
  usd,
} from './price.ts';

interface PricingReply {
  success: boolean;
  message?: string;
  data: PricingRow[];
  group_ratio: Record<string, number>;
  usable_group: Record<string, string>;
}

async function fetchPricing(): Promise<PricingReply> {
  const reply = (await requestEnvelope<PricingRow[]>('GET', '/api/pricing')) as unknown as PricingReply;
  if (!reply.success) throw new Error(reply.message || 'failed to load prices');
  return {
    ...reply,
    data: reply.data ?? [],
    group_ratio: reply.group_ratio ?? {},
    usable_group: reply.usable_group ?? {},
  };
}

/** The public price list. */
export default function PricingPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const { data, isLoading } = useQuery({ queryKey: ['pricing', user?.id ?? 0], queryFn: fetchPricing });
  const ownGroup = user?.group || 'default';
  const [viewGroup, setViewGroup] = useState<string | null>(null);
  const group = viewGroup ?? ownGroup;
  const groupRatio = data?.group_ratio[group] ?? 1;
  const [query, setQuery] = useState('');
  const [typing, setTyping] = useState('');
  const [composing, setComposing] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);
  const [pageSize, setPageSize] = usePageSize();

  const rows = useMemo(() => {
    const list = (data?.data ?? []).filter((r) => fuzzyMatch(r.model_name, query));
    const available = (r: PricingRow) => (r.enable_groups.includes(group) ? 1 : 0);
    return list.sort((a, b) => available(b) - available(a) || a.model_name.localeCompare(b.model_name));
  }, [data, query, group]);

  const switchGroup = (g: string) => {
    setViewGroup(g);
    feedback.message?.info(t('pricing.switched', { group: g, ratio: data?.group_ratio[g] ?? 1 }));
  };

  const formula = (
    <Typography.Paragraph style={{ maxWidth: 420, marginBottom: 0 }}>
      {t('pricing.formulaDetail')}
    </Typography.Paragraph>
  );

  return (
    <Card title={t('pricing.title')}>
      <Space orientation="vertical" style={{ width: '100%' }} size="middle">
        <Alert
          type="info"
          showIcon
          title={
            user
              ? t('pricing.groupBanner', { group, ratio: groupRatio })
              : t('pricing.guestBanner', { ratio: data?.group_ratio.default ?? 1 })
          }
        />
        <Alert type="success" showIcon title={t('pricing.formula')} />
        <Space wrap>
          <Input.Search
            allowClear
            style={{ width: 280, maxWidth: '100%' }}
            placeholder={t('pricing.search')}
            value={typing}
            onCompositionStart={() => setComposing(true)}
            onCompositionEnd={(e) => {
              setComposing(false);
              setQuery((e.target as HTMLInputElement).value);
            }}
            onChange={(e) => {
              setTyping(e.target.value);
              if (!composing) setQuery(e.target.value);
            }}
          />
          <Button
            icon={<CopyOutlined />}
            onClick={() =>
              selected.length
                ? copyText(selected.join(','))
                : feedback.message?.warning(t('pricing.selectFirst'))
            }
          >
            {t('pricing.copySelected')}
          </Button>
        </Space>
        <Table<PricingRow>
          rowKey="model_name"
          loading={isLoading}
          dataSource={rows}
          size="middle"
          scroll={{ x: 'max-content' }}
          rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys as string[]) }}
          pagination={{
            pageSize,
            showSizeChanger: true,
            pageSizeOptions: [10, 20, 50, 100],
            onShowSizeChange: (_, size) => setPageSize(size),
          }}
          columns={[
            {
              title: t('pricing.available'),
              key: 'available',
              width: 90,
              render: (_, r) =>
                r.enable_groups.includes(group) ? (
                  <Tooltip title={t('pricing.availableYes', { group })}>
                    <CheckCircleFilled
                      style={{ color: 'var(--ant-color-success)', fontSize: 18 }}
                      aria-label={t('pricing.availableYes', { group })}
                    />
                  </Tooltip>
                ) : (
                  <Tooltip title={t('pricing.availableNo', { group })}>
                    <CloseCircleOutlined
                      style={{ color: 'var(--ant-color-text-quaternary)', fontSize: 18 }}
                      aria-label={t('pricing.availableNo', { group })}
                    />
                  </Tooltip>
                ),
            },
            {
              title: t('pricing.model'),
              dataIndex: 'model_name',
              render: (name: string) => (
                <Tag color="geekblue" style={{ cursor: 'pointer' }} onClick={() => copyText(name)}>
                  {name}
                </Tag>
              ),
            },
            {
              title: t('pricing.billing'),
              key: 'billing',
              render: (_, r) =>
                r.quota_type === 1 ? (
                  <Tag color="purple">{t('pricing.perCall')}</Tag>
                ) : (
                  <Tag color="cyan">{t('pricing.perToken')}</Tag>
                ),
            },
            {
              title: t('pricing.groups'),
              key: 'groups',
              render: (_, r) => (
                <Space size={4} wrap>
                  {r.enable_groups
                    .filter((g) => data?.usable_group[g] !== undefined)
                    .map((g) => (
                      <Tag
                        key={g}
                        color={g === group ? 'blue' : undefined}
                        style={{ cursor: 'pointer' }}
                        onClick={() => switchGroup(g)}
                      >
                        {g}
                      </Tag>
                    ))}
                </Space>
              ),
            },
            {
              title: (
                <Space size={4}>
                  {t('pricing.ratios')}
                  <Popover content={formula} title={t('pricing.formulaTitle')}>
                    <QuestionCircleOutlined aria-label={t('pricing.formulaTitle')} />
                  </Popover>
                </Space>
              ),
              key: 'ratios',
              render: (_, r) =>
                r.quota_type === 1 ? (
                  <span>{t('pricing.groupRatio', { ratio: groupRatio })}</span>
                ) : (
                  <div style={{ whiteSpace: 'nowrap' }}>
                    <div>{t('pricing.modelRatio', { ratio: r.model_ratio })}</div>
                    <div>{t('pricing.completionRatio', { ratio: r.completion_ratio })}</div>
                    <div>{t('pricing.groupRatio', { ratio: groupRatio })}</div>
                  </div>
                ),
            },
            {
              title: t('pricing.price'),
              key: 'price',
              render: (_, r) =>
                r.quota_type === 1 ? (
                  <span>{t('pricing.callPrice', { price: usd(perCall(r, groupRatio)) })}</span>
                ) : (
                  <div style={{ whiteSpace: 'nowrap' }}>
                    <div>{t('pricing.promptPrice', { price: usd(promptPerMillion(r, groupRatio)) })}</div>
                    <div>
                      {t('pricing.completionPrice', { price: usd(completionPerMillion(r, groupRatio)) })}
                    </div>
                    {r.unpriced && <Typography.Text type="warning">{t('pricing.unpriced')}</Typography.Text>}
                  </div>
                ),
            },
          ]}
        />
      </Space>
    </Card>
  );
}
