import { useSyncExternalStore } from 'react';

/** A viewport of 600 px or less is mobile. */
const QUERY = '(max-width: 600px)';

function subscribe(cb: () => void) {
  const mq = window.matchMedia(QUERY);
  mq.addEventListener?.('change', cb);
  window.addEventListener('resize', cb);
  return () => {
    mq.removeEventListener?.('change', cb);
    window.removeEventListener('resize', cb);
  };
}

export function useIsMobile(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(QUERY).matches || window.innerWidth <= 600);
}
