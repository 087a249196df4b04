/** A song clip of a finished (or streaming) music task, with only the links the page can safely show. */
export interface Clip {
  id: string;
  title: string;
  status: string;
  audio: string;
  video: string;
  image: string;
  tags: string;
}

/** What a task's upstream data holds for a reader: song clips, or written lyrics. */
export interface TaskResult {
  clips: Clip[];
  lyrics: { title: string; text: string } | null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Only http(s) links are shown or played: the data comes from the upstream, not from the gateway. */
export function safeUrl(v: unknown): string {
  const s = str(v).trim();
  if (!s) return '';
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : '';
  } catch {
    return '';
  }
}

/** Reads the task's stored data (a JSON string) into clips or lyrics; anything else is no result. */
export function resultOf(data: unknown): TaskResult {
  let parsed: unknown = data;
  if (typeof data === 'string') {
    try {
      parsed = data ? JSON.parse(data) : null;
    } catch {
      parsed = null;
    }
  }
  if (Array.isArray(parsed)) {
    const clips = parsed.flatMap((c): Clip[] => {
      if (!c || typeof c !== 'object') return [];
      const o = c as Record<string, unknown>;
      const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as Record<
        string,
        unknown
      >;
      return [
        {
          id: str(o.id),
          title: str(o.title),
          status: str(o.status),
          audio: safeUrl(o.audio_url),
          video: safeUrl(o.video_url),
          image: safeUrl(o.image_url),
          tags: str(meta.tags),
        },
      ];
    });
    return { clips, lyrics: null };
  }
  if (parsed && typeof parsed === 'object') {
    const o = parsed as Record<string, unknown>;
    if (str(o.text)) return { clips: [], lyrics: { title: str(o.title), text: str(o.text) } };
  }
  return { clips: [], lyrics: null };
}
