import { Space, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import type { AuditChange } from './api.ts';

const OP_COLOR: Record<AuditChange['op'], string> = {
  create: 'green',
  update: 'blue',
  delete: 'red',
  action: 'purple',
};

/** A value as text: JSON for objects, long text wrapped, null as a dash. */
function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <Typography.Text type="secondary">-</Typography.Text>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === '[redacted]') return <Tag>{text}</Tag>;
  return (
    <Typography.Text code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
      {text}
    </Typography.Text>
  );
}

/** The before/after of every row one audit entry changed, one small table per row. */
export function ChangesView({ changes }: { changes: AuditChange[] }) {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="audit-changes">
      {changes.map((c) => (
        <div key={`${c.entity}:${c.id}:${c.op}`}>
          <Space style={{ marginBottom: 4 }}>
            <Tag color={OP_COLOR[c.op]}>{t(`audit.op.${c.op}`)}</Tag>
            <Typography.Text strong>
              {t(`audit.entities.${c.entity}`, { defaultValue: c.entity })}
              {c.id ? ` ${c.id}` : ''}
            </Typography.Text>
          </Space>
          {isMobile ? (
            <FieldList fields={c.fields} />
          ) : (
            <Table
              size="small"
              pagination={false}
              rowKey="field"
              scroll={{ x: 'max-content' }}
              locale={{ emptyText: t('audit.noChanges') }}
              dataSource={Object.entries(c.fields).map(([field, [before, after]]) => ({
                field,
                before,
                after,
              }))}
              columns={[
                { title: t('audit.field'), dataIndex: 'field', width: 160 },
                { title: t('audit.before'), dataIndex: 'before', render: (v) => <Value value={v} /> },
                { title: t('audit.after'), dataIndex: 'after', render: (v) => <Value value={v} /> },
              ]}
            />
          )}
        </div>
      ))}
    </Space>
  );
}

/** On a phone: each field on its own lines, before then after, so nothing needs sideways scrolling. */
function FieldList({ fields }: { fields: AuditChange['fields'] }) {
  const { t } = useTranslation();
  const entries = Object.entries(fields);
  if (!entries.length) return <Typography.Text type="secondary">{t('audit.noChanges')}</Typography.Text>;
  return (
    <div style={{ display: 'grid', gap: 8, maxWidth: 'calc(100vw - 72px)' }}>
      {entries.map(([field, [before, after]]) => (
        <div key={field}>
          <Typography.Text strong>{field}</Typography.Text>
          <div>
            <Typography.Text type="secondary">{t('audit.before')}: </Typography.Text>
            <Value value={before} />
          </div>
          <div>
            <Typography.Text type="secondary">{t('audit.after')}: </Typography.Text>
            <Value value={after} />
          </div>
        </div>
      ))}
    </div>
  );
}
