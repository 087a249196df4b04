import { useMutation } from '@tanstack/react-query';
import { Button, type FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/client.ts';
import { feedback, showError } from '../../../shared/feedback.tsx';

interface Endpoints {
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
}

/** Fills the three OIDC endpoints from the well-known document (fetched by the server through its SSRF guard). */
export function OidcDiscover({ form }: { form: FormInstance }) {
  const { t } = useTranslation();
  const discover = useMutation({
    meta: { silent: true },
    mutationFn: (wellKnown: string) =>
      api.post<Endpoints>('/api/option/oidc_discovery', { well_known: wellKnown }),
    onSuccess: (ep) => {
      form.setFieldsValue({
        'oidc.authorization_endpoint': ep.authorization_endpoint,
        'oidc.token_endpoint': ep.token_endpoint,
        'oidc.user_info_endpoint': ep.userinfo_endpoint,
      });
      feedback.message?.success(t('settings.oidc.fetched'));
    },
    onError: (err) => {
      feedback.message?.error(t('settings.oidc.fetchFailed'));
      showError(err);
    },
  });
  const onClick = () => {
    const url = String(form.getFieldValue('oidc.well_known') ?? '').trim();
    if (!/^https?:\/\//i.test(url)) {
      feedback.message?.error(t('settings.error.wellKnown'));
      return;
    }
    discover.mutate(url);
  };
  return (
    <div style={{ marginBottom: 16 }}>
      <Button onClick={onClick} loading={discover.isPending}>
        {t('settings.oidc.fetch')}
      </Button>
    </div>
  );
}
