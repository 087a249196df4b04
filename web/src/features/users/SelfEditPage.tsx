import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, Input, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import { SELF_KEY, useSelf } from '../personal/api.ts';

interface SelfForm {
  display_name: string;
}

/** /user/edit: a user's own profile through the self endpoint (no group or quota). */
export function SelfEditPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const self = useSelf();
  const save = useMutation({
    mutationFn: (v: SelfForm) => api.put('/api/user/self', { display_name: v.display_name.trim() }),
    onSuccess: () => {
      feedback.message?.success(t('users.updated'));
      queryClient.invalidateQueries({ queryKey: SELF_KEY });
    },
  });
  if (!self.data) return <Skeleton active />;
  return (
    <Card title={t('users.editSelf')} style={{ maxWidth: 560 }}>
      <Form<SelfForm>
        name="editSelf"
        layout="vertical"
        initialValues={{ display_name: self.data.display_name }}
        onFinish={(v) => save.mutate(v)}
      >
        <Form.Item label={t('users.username')}>
          <Input value={self.data.username} disabled />
        </Form.Item>
        <Form.Item name="display_name" label={t('users.displayName')}>
          <Input maxLength={20} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {t('common.save')}
        </Button>
      </Form>
    </Card>
  );
}
