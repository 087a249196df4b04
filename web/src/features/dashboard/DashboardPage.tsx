import { ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Col,
  DatePicker,
  Empty,
  Input,
  Row,
  Select,
  Space,
  Statistic,
  Tabs,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import ReactECharts from 'echarts-for-react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useSession } from '../../shared/session.ts';
import { useStatus } from '../../shared/status.ts';
import { useThemeMode } from '../../shared/theme.tsx';
import { LazyMarginPanel } from '../cost/LazyMarginPanel.tsx';
import { aggregate, defaultRange, type Granularity, type QuotaDataRow } from './aggregate.ts';

interface SelfUser {
  quota: number;
  used_quota: number;
  request_count: number;
}

/** The data dashboard (/detail): balance, usage in a chosen window, quota and calls per model over time. */
export default function DashboardPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const { status } = useStatus();
  const { mode } = useThemeMode();
  const { format, toUnits, displayInCurrency } = useQuotaFormat();
  const queryClient = useQueryClient();
  const initialGranularity =
    (['hour', 'day', 'week'] as const).find((g) => g === status.data_export_default_time) ?? 'hour';
  const [granularity, setGranularity] = useState<Granularity>(initialGranularity);
  const [range, setRange] = useState<[number, number]>(() => defaultRange(initialGranularity));
  const [usernameInput, setUsernameInput] = useState('');
  const [username, setUsername] = useState('');

  const self = useQuery({ queryKey: ['user-self'], queryFn: () => api.get<SelfUser>('/api/user/self') });
  const data = useQuery({
    queryKey: ['quota-data', isAdmin, username, range],
    queryFn: () =>
      isAdmin
        ? api.get<QuotaDataRow[]>('/api/data/', {
            username,
            start_timestamp: range[0],
            end_timestamp: range[1],
          })
        : api.get<QuotaDataRow[]>('/api/data/self/', { start_timestamp: range[0], end_timestamp: range[1] }),
  });
  const agg = useMemo(() => aggregate(data.data ?? [], granularity), [data.data, granularity]);
  const minutes = Math.max(1, (range[1] - range[0]) / 60);
  const value = (quota: number) => (displayInCurrency ? Number(toUnits(quota).toFixed(6)) : quota);

  const chartTheme = mode === 'dark' ? 'dark' : undefined;
  const base = {
    animation: false,
    backgroundColor: 'transparent',
    tooltip: { trigger: 'axis' as const },
    legend: { type: 'scroll' as const, top: 0 },
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
  };
  const quotaOption = {
    ...base,
    xAxis: { type: 'category', data: agg.buckets },
    yAxis: { type: 'value', name: displayInCurrency ? 'US$' : t('dashboard.quota') },
    series: agg.models.map(([name, m]) => ({
      name,
      type: 'bar',
      stack: 'quota',
      emphasis: { focus: 'series' },
      data: agg.buckets.map((b) => value(m.quota.get(b) ?? 0)),
    })),
  };
  const countOption = {
    ...base,
    tooltip: { trigger: 'item' as const },
    series: [
      {
        type: 'pie',
        radius: ['40%', '70%'],
        top: 30,
        data: agg.models.map(([name, m]) => ({ name, value: m.totalCount })),
        label: { formatter: '{b}: {c}' },
      },
    ],
  };

  // The Account card, the range figures and the margin panel are read again together, so they agree.
  const refresh = () => {
    data.refetch();
    self.refetch();
    queryClient.invalidateQueries({ queryKey: ['margin'] });
  };

  const onGranularity = (g: Granularity) => {
    setGranularity(g);
    setRange(defaultRange(g));
  };
  const pick = (i: 0 | 1) => (d: Dayjs | null) => {
    if (d) setRange((r) => (i === 0 ? [d.unix(), r[1]] : [r[0], d.unix()]));
  };

  const card = (title: string, children: React.ReactNode) => (
    <Col xs={24} md={8}>
      <Card size="small" title={title} style={{ height: '100%' }}>
        {children}
      </Card>
    </Col>
  );

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      {status.enable_data_export === false && (
        <Alert type="warning" showIcon title={t('dashboard.disabled')} />
      )}
      <Card size="small">
        <Space wrap>
          <DatePicker
            showTime
            value={dayjs.unix(range[0])}
            onChange={pick(0)}
            allowClear={false}
            aria-label={t('common.startTime')}
          />
          <DatePicker
            showTime
            value={dayjs.unix(range[1])}
            onChange={pick(1)}
            allowClear={false}
            aria-label={t('common.endTime')}
          />
          <Select<Granularity>
            value={granularity}
            onChange={onGranularity}
            style={{ width: 110 }}
            options={(['hour', 'day', 'week'] as const).map((g) => ({
              value: g,
              label: t(`dashboard.granularity.${g}`),
            }))}
            aria-label={t('dashboard.granularityLabel')}
          />
          {isAdmin && (
            <Input.Search
              allowClear
              placeholder={t('dashboard.username')}
              value={usernameInput}
              onChange={(e) => setUsernameInput(e.target.value)}
              onSearch={(v) => setUsername(v.trim())}
              style={{ width: 200 }}
            />
          )}
          <Button icon={<ReloadOutlined />} onClick={refresh} loading={data.isFetching}>
            {t('common.refresh')}
          </Button>
          {data.dataUpdatedAt > 0 && (
            <Typography.Text type="secondary" data-testid="dashboard-as-of">
              {t('dashboard.asOf', { time: dayjs(data.dataUpdatedAt).format('HH:mm:ss') })}
            </Typography.Text>
          )}
        </Space>
      </Card>
      <Row gutter={[16, 16]}>
        {card(
          t('dashboard.account'),
          <Space size="large" wrap>
            <Statistic title={t('dashboard.balance')} value={format(self.data?.quota ?? 0)} />
            <Statistic title={t('dashboard.used')} value={format(self.data?.used_quota ?? 0)} />
            <Statistic title={t('dashboard.requests')} value={self.data?.request_count ?? 0} />
          </Space>,
        )}
        {card(
          t('dashboard.range'),
          <Space size="large" wrap>
            <Statistic title={t('dashboard.rangeQuota')} value={format(agg.totals.quota)} />
            <Statistic title={t('dashboard.rangeTokens')} value={agg.totals.tokens} />
            <Statistic title={t('dashboard.rangeCalls')} value={agg.totals.count} />
          </Space>,
        )}
        {card(
          t('dashboard.speed'),
          <Space size="large" wrap>
            <Statistic title={t('dashboard.rpm')} value={(agg.totals.count / minutes).toFixed(3)} />
            <Statistic title={t('dashboard.tpm')} value={(agg.totals.tokens / minutes).toFixed(3)} />
          </Space>,
        )}
      </Row>
      <Card size="small">
        {agg.models.length === 0 ? (
          <Empty description={t('dashboard.noData')} />
        ) : (
          <Tabs
            items={[
              {
                key: 'quota',
                label: t('dashboard.quotaChart'),
                children: (
                  <ReactECharts
                    key={`q-${mode}`}
                    option={quotaOption}
                    theme={chartTheme}
                    notMerge
                    style={{ height: 380 }}
                  />
                ),
              },
              {
                key: 'count',
                label: t('dashboard.countChart'),
                children: (
                  <ReactECharts
                    key={`c-${mode}`}
                    option={countOption}
                    theme={chartTheme}
                    notMerge
                    style={{ height: 380 }}
                  />
                ),
              },
            ]}
          />
        )}
      </Card>
      {isAdmin && (
        <LazyMarginPanel
          filter={{ start_timestamp: range[0], end_timestamp: range[1], username: username || undefined }}
        />
      )}
    </Space>
  );
}
