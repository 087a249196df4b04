import { Button, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

const SHOW_MS = 3000;
const RELOAD_AFTER_MS = 10_000;

/** On 1 January a 🎉 button sets off fireworks for 3 s; the page reloads 10 s later. */
export function NewYearEgg() {
  const { t } = useTranslation();
  const [firing, setFiring] = useState(false);
  useEffect(() => {
    if (!firing) return;
    const stop = setTimeout(() => setFiring(false), SHOW_MS);
    const reload = setTimeout(() => window.location.reload(), SHOW_MS + RELOAD_AFTER_MS);
    return () => {
      clearTimeout(stop);
      clearTimeout(reload);
    };
  }, [firing]);
  const today = new Date();
  if (today.getMonth() !== 0 || today.getDate() !== 1) return null;
  return (
    <>
      <Tooltip title={t('header.newYear')}>
        <Button type="text" aria-label={t('header.newYear')} onClick={() => setFiring(true)}>
          🎉
        </Button>
      </Tooltip>
      {firing && (
        <div aria-hidden className="new-year-fireworks">
          {Array.from({ length: 24 }, (_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed decoration list
            <span key={i} style={{ left: `${(i * 37) % 100}%`, animationDelay: `${(i % 6) * 0.3}s` }}>
              {['🎆', '🎇', '✨'][i % 3]}
            </span>
          ))}
        </div>
      )}
    </>
  );
}
