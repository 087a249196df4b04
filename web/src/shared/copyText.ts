import { Typography } from 'antd';
import { createElement } from 'react';
import i18n from '../i18n/index.ts';
import { feedback } from './feedback.tsx';

function legacyCopy(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/**
 * Copies text and says so; when the browser refuses (no clipboard permission, plain http), a modal shows
 * the text to copy by hand. Resolves true when the text reached the clipboard.
 */
export async function copyText(text: string, opts: { silent?: boolean } = {}): Promise<boolean> {
  let ok = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch {
    ok = false;
  }
  if (!ok) ok = legacyCopy(text);
  const t = i18n.t.bind(i18n);
  if (ok) {
    if (!opts.silent)
      feedback.message?.success(
        t('common.copied', { text: text.length > 60 ? `${text.slice(0, 60)}…` : text }),
      );
  } else {
    feedback.modal?.info({
      title: t('common.copyFailed'),
      content: createElement(
        Typography.Paragraph,
        { copyable: false, style: { wordBreak: 'break-all' } },
        text,
      ),
    });
  }
  return ok;
}
