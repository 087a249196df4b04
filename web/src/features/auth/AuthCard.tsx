import { Card } from 'antd';
import type { ReactNode } from 'react';

/** The narrow centred card the login and sign-up pages sit in. */
export function AuthCard({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <div style={{ maxWidth: 420, margin: '24px auto' }}>
      <Card title={title}>{children}</Card>
    </div>
  );
}
