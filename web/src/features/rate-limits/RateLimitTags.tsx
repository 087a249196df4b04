import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** A token's per-minute limits as small tags ("60 RPM", "100K TPM"); nothing when it has none. */
export function RateLimitTags({ rpm, tpm }: { rpm?: number; tpm?: number }) {
  const { t } = useTranslation();
  return (
    <>
      {!!rpm && (
        <Tag color="purple" data-testid="token-rpm">
          {t('rateLimits.perMinute', { rpm: compact.format(rpm) })}
        </Tag>
      )}
      {!!tpm && (
        <Tag color="purple" data-testid="token-tpm">
          {t('rateLimits.tokensPerMinute', { tpm: compact.format(tpm) })}
        </Tag>
      )}
    </>
  );
}
