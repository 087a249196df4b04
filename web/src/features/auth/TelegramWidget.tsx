import { useEffect, useRef } from 'react';

/** Telegram's login widget; `onAuth` receives the signed fields to pass to the server. */
export function TelegramWidget({
  botName,
  onAuth,
}: {
  botName: string;
  onAuth: (fields: Record<string, string>) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const handler = useRef(onAuth);
  handler.current = onAuth;
  useEffect(() => {
    const w = window as unknown as Record<string, unknown>;
    w.onTelegramAuth = (user: Record<string, string | number>) =>
      handler.current(Object.fromEntries(Object.entries(user).map(([k, v]) => [k, String(v)])));
    const script = document.createElement('script');
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'large');
    script.setAttribute('data-onauth', 'onTelegramAuth(user)');
    script.setAttribute('data-request-access', 'write');
    box.current?.appendChild(script);
    const el = box.current;
    return () => {
      if (el) el.innerHTML = '';
    };
  }, [botName]);
  return <div ref={box} />;
}
