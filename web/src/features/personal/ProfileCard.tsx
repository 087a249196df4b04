import { useQuery } from '@tanstack/react-query';
import { Avatar, Button, Card, Col, Flex, Row, Space, Statistic, Tag, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { copyText } from '../../shared/copyText.ts';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useLocalSetting } from '../../shared/storage.ts';
import type { SelfUser } from './api.ts';

const COLLAPSED_MODELS = 10;

function roleLabel(role: number, t: (k: string) => string) {
  if (role >= 100) return <Tag color="orange">{t('personal.roleRoot')}</Tag>;
  if (role >= 10) return <Tag color="gold">{t('personal.roleAdmin')}</Tag>;
  return <Tag>{t('personal.roleUser')}</Tag>;
}

/** Who I am, my balance, and the models I may use (collapsed to 10; the expanded state is remembered). */
export function ProfileCard({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { format } = useQuotaFormat();
  const [expanded, setExpanded] = useLocalSetting<boolean>('modelsExpanded', false);
  const models = useQuery({
    queryKey: ['user', 'models'],
    queryFn: () => api.get<string[]>('/api/user/models'),
  });
  const list = models.data ?? [];
  const visible = expanded ? list : list.slice(0, COLLAPSED_MODELS);
  const hidden = list.length - COLLAPSED_MODELS;

  return (
    <Card>
      <Flex gap={16} align="center" wrap>
        <Avatar size={56} style={{ background: token.colorPrimary, fontSize: 24 }}>
          {(user.display_name || user.username).slice(0, 1).toUpperCase()}
        </Avatar>
        <div style={{ minWidth: 0 }}>
          <Typography.Title level={4} style={{ margin: 0 }} ellipsis>
            {user.display_name || user.username}
          </Typography.Title>
          <Space size={4} wrap>
            <Typography.Text type="secondary">@{user.username}</Typography.Text>
            {roleLabel(user.role, t)}
            <Tag color="blue">{user.group}</Tag>
          </Space>
        </div>
      </Flex>
      <Row gutter={[16, 16]} style={{ marginTop: 20 }}>
        <Col xs={8}>
          <Statistic title={t('personal.balance')} value={format(user.quota)} />
        </Col>
        <Col xs={8}>
          <Statistic title={t('personal.used')} value={format(user.used_quota)} />
        </Col>
        <Col xs={8}>
          <Statistic title={t('personal.requests')} value={user.request_count} />
        </Col>
      </Row>
      <Typography.Title level={5} style={{ marginTop: 20 }}>
        {t('personal.models')}
      </Typography.Title>
      {list.length === 0 ? (
        <Typography.Text type="secondary">
          {models.isLoading ? t('common.loading') : t('personal.noModels')}
        </Typography.Text>
      ) : (
        <Flex gap={6} wrap data-testid="model-tags">
          {visible.map((m) => (
            <Tag key={m} style={{ cursor: 'pointer', marginInlineEnd: 0 }} onClick={() => copyText(m)}>
              {m}
            </Tag>
          ))}
          {hidden > 0 && (
            <Button
              type="link"
              size="small"
              onClick={() => setExpanded(!expanded)}
              style={{ paddingInline: 4 }}
            >
              {expanded ? t('common.collapse') : t('personal.moreModels', { n: hidden })}
            </Button>
          )}
        </Flex>
      )}
    </Card>
  );
}
