import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

/** Admin-written text: an https:// address is shown in a frame, anything else as sanitised markdown/HTML. */
export function isFrameUrl(text: string): boolean {
  return /^https:\/\/\S+$/i.test(text.trim());
}

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }) as string);
}

export function RichContent({
  text,
  title,
  frameHeight = 'calc(100vh - 120px)',
}: {
  text: string;
  title: string;
  frameHeight?: string;
}) {
  const html = useMemo(() => (isFrameUrl(text) ? '' : renderMarkdown(text)), [text]);
  if (isFrameUrl(text)) {
    return (
      <iframe
        src={text.trim()}
        title={title}
        style={{ width: '100%', height: frameHeight, border: 0 }}
        sandbox="allow-scripts allow-same-origin allow-popups allow-forms"
      />
    );
  }
  return (
    <div
      className="rich-content"
      style={{ overflowWrap: 'anywhere', lineHeight: 1.7 }}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by DOMPurify above
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
