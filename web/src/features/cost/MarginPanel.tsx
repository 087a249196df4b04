import { Alert, Card, Col, Empty, Row, Spin, Statistic, Table, Tabs, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import dayjs from 'dayjs';
import ReactECharts from 'echarts-for-react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useThemeMode } from '../../shared/theme.tsx';
import { type MarginFilter, type MarginSums, marginRate, percent, useMargin } from './api.ts';

/** Channels or models shown in a chart; the table below it lists them all. */
const CHART_TOP = 12;

/** Series colours, the same as the log page's tags: revenue blue, cost orange, margin green (red below zero). */
const COLORS = { revenue: '#1677ff', cost: '#fa8c16', margin: '#52c41a', loss: '#ff4d4f' };

type Named = MarginSums & { key: string; name: string };

/**
 * Revenue, upstream cost and margin for admins: totals, a chart by day, and charts with tables by channel and by
 * model, over the given log filter.
 */
export function MarginPanel({ filter }: { filter: MarginFilter }) {
  const { t } = useTranslation();
  const { mode } = useThemeMode();
  const { format, toUnits, displayInCurrency } = useQuotaFormat();
  const q = useMargin(filter);
  const r = q.data;
  const value = (quota: number) => (displayInCurrency ? Number(toUnits(quota).toFixed(6)) : quota);
  const chartTheme = mode === 'dark' ? 'dark' : undefined;
  const loss = (v: number, text: string) => (
    <span style={v < 0 ? { color: 'var(--ant-color-error)' } : undefined}>{text}</span>
  );

  const chart = (key: string, labels: string[], rows: MarginSums[]) => {
    // A trend over several days is a line; a single day, a channel or a model is a bar, red when it is a loss.
    const line = key === 'day' && rows.length > 1;
    return {
      animation: false,
      backgroundColor: 'transparent',
      tooltip: { trigger: 'axis' as const },
      // Below the chart, so that on a phone it does not run into the axis name above it.
      legend: { bottom: 0 },
      grid: { left: 8, right: 16, top: 32, bottom: 36, containLabel: true },
      xAxis: { type: 'category', data: labels, axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', name: displayInCurrency ? 'US$' : t('dashboard.quota') },
      series: [
        {
          name: t('cost.revenue'),
          type: 'bar',
          color: COLORS.revenue,
          data: rows.map((s) => value(s.revenue)),
        },
        { name: t('cost.cost'), type: 'bar', color: COLORS.cost, data: rows.map((s) => value(s.cost)) },
        {
          name: t('cost.margin'),
          type: line ? 'line' : 'bar',
          color: COLORS.margin,
          data: rows.map((s) =>
            line || s.margin >= 0
              ? value(s.margin)
              : { value: value(s.margin), itemStyle: { color: COLORS.loss } },
          ),
        },
      ],
    };
  };
  const echart = (key: string, labels: string[], rows: MarginSums[]) => (
    <ReactECharts
      key={`${key}-${mode}`}
      option={chart(key, labels, rows)}
      theme={chartTheme}
      notMerge
      style={{ height: 320 }}
    />
  );

  const columns = (nameTitle: string): ColumnsType<Named> => [
    { title: nameTitle, dataIndex: 'name', key: 'name', ellipsis: true, fixed: 'left', width: 150 },
    { title: t('cost.requests'), dataIndex: 'count', key: 'count', align: 'right' },
    { title: t('cost.revenue'), key: 'revenue', align: 'right', render: (_, s) => format(s.revenue) },
    { title: t('cost.cost'), key: 'cost', align: 'right', render: (_, s) => format(s.cost) },
    {
      title: t('cost.margin'),
      key: 'margin',
      align: 'right',
      render: (_, s) => loss(s.margin, format(s.margin)),
    },
    {
      title: t('cost.marginRate'),
      key: 'rate',
      align: 'right',
      render: (_, s) => loss(s.margin, percent(marginRate(s))),
    },
  ];
  const table = (testId: string, nameTitle: string, rows: Named[]) => (
    <Table<Named>
      data-testid={testId}
      size="small"
      rowKey="key"
      columns={columns(nameTitle)}
      dataSource={rows}
      pagination={rows.length > 20 ? { pageSize: 20, showSizeChanger: false } : false}
      scroll={{ x: 'max-content' }}
    />
  );
  const breakdown = (key: string, nameTitle: string, rows: Named[]) => (
    <>
      {echart(
        key,
        rows.slice(0, CHART_TOP).map((s) => s.name),
        rows.slice(0, CHART_TOP),
      )}
      {table(`margin-${key}-table`, nameTitle, rows)}
    </>
  );

  const channels: Named[] = (r?.channels ?? []).map((c) => ({
    ...c,
    key: String(c.channel_id),
    name: c.channel_id ? `#${c.channel_id} ${c.channel_name}`.trim() : t('cost.unknownChannel'),
  }));
  const models: Named[] = (r?.models ?? []).map((m) => ({
    ...m,
    key: m.model_name,
    name: m.model_name || '-',
  }));

  return (
    <Card size="small" title={t('cost.title')} data-testid="margin-panel">
      <Spin spinning={q.isFetching}>
        <Row gutter={[16, 16]}>
          <Col xs={12} md={6}>
            <Statistic title={t('cost.revenue')} value={format(r?.revenue ?? 0)} />
          </Col>
          <Col xs={12} md={6}>
            <Statistic title={t('cost.cost')} value={format(r?.cost ?? 0)} />
          </Col>
          <Col xs={12} md={6}>
            <Statistic
              title={t('cost.margin')}
              value={format(r?.margin ?? 0)}
              styles={{ content: (r?.margin ?? 0) < 0 ? { color: 'var(--ant-color-error)' } : undefined }}
            />
          </Col>
          <Col xs={12} md={6}>
            <Statistic
              title={t('cost.marginRate')}
              value={percent(r ? marginRate(r) : null)}
              styles={{ content: (r?.margin ?? 0) < 0 ? { color: 'var(--ant-color-error)' } : undefined }}
            />
          </Col>
        </Row>
        {r && r.uncosted > 0 && (
          <Alert
            type="warning"
            showIcon
            style={{ marginTop: 12 }}
            title={t('cost.uncosted', {
              since: dayjs.unix(r.cost_since).format('YYYY-MM-DD HH:mm'),
              amount: format(r.uncosted),
            })}
          />
        )}
        {r && r.count === 0 ? (
          <Empty style={{ marginTop: 16 }} description={t('cost.empty')} />
        ) : r ? (
          <Tabs
            style={{ marginTop: 8 }}
            items={[
              {
                key: 'day',
                label: t('cost.byDay'),
                children: echart(
                  'day',
                  r.days.map((d) => d.day),
                  r.days,
                ),
              },
              {
                key: 'channel',
                label: t('cost.byChannel'),
                children: breakdown('channel', t('cost.channel'), channels),
              },
              {
                key: 'model',
                label: t('cost.byModel'),
                children: breakdown('model', t('cost.model'), models),
              },
            ]}
          />
        ) : null}
        {r && (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('cost.timeZone', { tz: r.tz })}
          </Typography.Text>
        )}
      </Spin>
    </Card>
  );
}
