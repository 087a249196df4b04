import { Alert, Col, Row, Skeleton } from 'antd';
import { useSelf } from './api.ts';
import { BindingsCard } from './BindingsCard.tsx';
import { InviteCard } from './InviteCard.tsx';
import { ProfileCard } from './ProfileCard.tsx';
import { SecurityCard } from './SecurityCard.tsx';
import { SettingsTabs } from './SettingsTabs.tsx';

export default function PersonalPage() {
  const self = useSelf();
  if (self.isLoading) return <Skeleton active />;
  if (!self.data) return <Alert type="error" showIcon title={self.error?.message ?? ''} />;
  const user = self.data;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={14}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <ProfileCard user={user} />
          </Col>
          <Col span={24}>
            <InviteCard user={user} />
          </Col>
          <Col span={24}>
            <SettingsTabs user={user} />
          </Col>
        </Row>
      </Col>
      <Col xs={24} xl={10}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <SecurityCard user={user} />
          </Col>
          <Col span={24}>
            <BindingsCard user={user} />
          </Col>
        </Row>
      </Col>
    </Row>
  );
}
