import { ApiOutlined, DollarOutlined, ExperimentOutlined, ReadOutlined } from '@ant-design/icons';
import { Button, Card, Col, Descriptions, Row, Space, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { RichContent } from '../../shared/RichContent.tsx';
import { useSession } from '../../shared/session.ts';
import { useStatus } from '../../shared/status.ts';
import { formatTime } from '../../shared/TimeText.tsx';
import { NoticeModal } from './NoticeModal.tsx';
import { useContent } from './useContent.ts';

/** Home: the admin's HomePageContent (markdown/HTML, or an https page in a frame), else a default welcome. */
export default function HomePage() {
  const { t } = useTranslation();
  const content = useContent('/api/home_page_content', 'home_page_content');
  const text = content.data ?? '';
  return (
    <div style={{ padding: text.trim() ? 0 : undefined }}>
      <NoticeModal />
      {content.isLoading && !text ? (
        <Spin style={{ display: 'block', margin: 64 }} />
      ) : text.trim() ? (
        <Card variant="borderless">
          <RichContent text={text} title={t('home.title')} />
        </Card>
      ) : (
        <DefaultHome />
      )}
    </div>
  );
}

function DefaultHome() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const { isLoggedIn } = useSession();
  const name = status.system_name || 'New API';
  const features = [
    { icon: <ApiOutlined />, title: t('home.f1'), text: t('home.f1Text') },
    { icon: <DollarOutlined />, title: t('home.f2'), text: t('home.f2Text') },
    { icon: <ExperimentOutlined />, title: t('home.f3'), text: t('home.f3Text') },
  ];
  return (
    <Space
      orientation="vertical"
      size="large"
      style={{ width: '100%', maxWidth: 1080, margin: '0 auto', display: 'flex', padding: '24px 0' }}
    >
      <div style={{ textAlign: 'center', padding: '32px 8px' }}>
        <Typography.Title style={{ marginBottom: 8 }}>{name}</Typography.Title>
        <Typography.Paragraph type="secondary" style={{ fontSize: 16 }}>
          {t('home.tagline')}
        </Typography.Paragraph>
        <Space wrap style={{ justifyContent: 'center' }}>
          <Link to={isLoggedIn ? '/token' : '/login'}>
            <Button type="primary" size="large">
              {t(isLoggedIn ? 'home.console' : 'home.start')}
            </Button>
          </Link>
          <Link to="/pricing">
            <Button size="large">{t('home.pricing')}</Button>
          </Link>
          {status.docs_link && (
            <Button
              size="large"
              icon={<ReadOutlined />}
              href={status.docs_link}
              target="_blank"
              rel="noreferrer"
            >
              {t('home.docs')}
            </Button>
          )}
        </Space>
      </div>
      <Row gutter={[16, 16]}>
        {features.map((f) => (
          <Col xs={24} md={8} key={f.title}>
            <Card style={{ height: '100%' }}>
              <Space align="start">
                <span style={{ fontSize: 24 }}>{f.icon}</span>
                <div>
                  <Typography.Title level={5}>{f.title}</Typography.Title>
                  <Typography.Text type="secondary">{f.text}</Typography.Text>
                </div>
              </Space>
            </Card>
          </Col>
        ))}
      </Row>
      <Card title={t('home.systemStatus')} size="small">
        <Descriptions column={{ xs: 1, md: 2 }} size="small">
          <Descriptions.Item label={t('home.name')}>{name}</Descriptions.Item>
          <Descriptions.Item label={t('home.version')}>{status.version || '-'}</Descriptions.Item>
          <Descriptions.Item label={t('home.startTime')}>{formatTime(status.start_time)}</Descriptions.Item>
          <Descriptions.Item label={t('home.address')}>
            {status.server_address || window.location.origin}
          </Descriptions.Item>
        </Descriptions>
      </Card>
    </Space>
  );
}
