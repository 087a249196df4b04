import { useCallback, useEffect, useState } from 'react';

/** A resend lock: `start()` counts `seconds` down to 0 (30 s for e-mail codes). */
export function useCountdown(seconds = 30) {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  const start = useCallback(() => setLeft(seconds), [seconds]);
  return { left, running: left > 0, start };
}
