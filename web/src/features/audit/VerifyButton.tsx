import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { verifyAudit } from './api.ts';

/** Checks the hash chain on the server and says whether it is intact, or where it breaks. */
export function VerifyButton() {
  const { t } = useTranslation();
  const verify = useMutation({ mutationFn: verifyAudit });
  const r = verify.data;
  return (
    <Space direction="vertical" style={{ width: '100%', marginBottom: r ? 16 : 0 }}>
      <Button onClick={() => verify.mutate()} loading={verify.isPending}>
        {t('audit.verify')}
      </Button>
      {r &&
        (r.ok ? (
          <Alert
            type="success"
            showIcon
            data-testid="audit-verify"
            message={
              r.checked
                ? t('audit.verifyOk', { checked: r.checked, first: r.firstSeq, last: r.lastSeq })
                : t('audit.verifyEmpty')
            }
          />
        ) : (
          <Alert
            type="error"
            showIcon
            data-testid="audit-verify"
            message={t('audit.verifyBroken', { count: r.problems.length })}
            description={r.problems.map((p) => (
              <div key={p.seq}>{t('audit.problem', { seq: p.seq, reason: p.reason })}</div>
            ))}
          />
        ))}
    </Space>
  );
}
