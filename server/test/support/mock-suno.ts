import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/** A song clip as Suno's feed reports it (Suno-API keeps the feed's clips as a music task's data). */
export interface SunoClip {
  id: string;
  video_url: string;
  audio_url: string;
  image_url: string;
  image_large_url: string;
  is_video_pending: boolean;
  major_model_version: string;
  model_name: string;
  metadata: {
    tags: string;
    prompt: string;
    gpt_description_prompt: string | null;
    audio_prompt_id: null;
    history: null;
    concat_history: null;
    type: string;
    duration: number | null;
    refund_credits: boolean | null;
    stream: boolean;
    error_type: string | null;
    error_message: string | null;
  };
  is_liked: boolean;
  user_id: string;
  display_name: string;
  handle: string;
  is_handle_updated: boolean;
  is_trashed: boolean;
  reaction: null;
  created_at: string;
  status: 'submitted' | 'queued' | 'streaming' | 'complete' | 'error';
  title: string;
  play_count: number;
  upvote_count: number;
  is_public: boolean;
}

/** A task as Suno-API keeps it and answers it in `POST /suno/fetch` (entity/po/task.go). */
export interface SunoProxyTask {
  id: number;
  created_at: string;
  updated_at: string;
  task_id: string;
  action: 'MUSIC' | 'LYRICS';
  status: 'NOT_START' | 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'FAILURE' | 'SUCCESS' | 'UNKNOWN';
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  search_item: string;
  data: SunoClip[] | { id: string; status: string; title: string; text: string };
}

export interface SunoCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
}

/** Where Suno keeps a finished clip's audio and cover; browser tests answer it themselves (see WAV). */
export const CDN = 'https://cdn1.suno.ai';
/** Where Suno streams a clip's audio while it is being generated. */
export const AUDIOPIPE = 'https://audiopipe.suno.ai';

/** One second of a 440 Hz tone as an 8 kHz mono WAV: what a browser test serves for every clip's audio. */
export const WAV = (() => {
  const rate = 8000;
  const samples = rate;
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0, 'latin1');
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVEfmt ', 8, 'latin1');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'latin1');
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++)
    buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), 44 + i * 2);
  return buf;
})();

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      s += c;
    });
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

const answer = (res: ServerResponse, status: number, code: string, message: string, data: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ code, message, data }));
};

/** Suno-API's clip status -> task status (api.go readerStatus). */
const TASK_STATUS: Record<SunoClip['status'], SunoProxyTask['status']> = {
  submitted: 'SUBMITTED',
  queued: 'QUEUED',
  streaming: 'IN_PROGRESS',
  complete: 'SUCCESS',
  error: 'FAILURE',
};

/**
 * A local stand-in for a Suno-API server (Suno-API/Suno-API): `Authorization: Bearer <secret>` checked as its
 * SecretAuth middleware does, `POST /suno/submit/{music,lyrics}` answering `{code:"success", data:<task id>}`
 * (lyrics are written before the answer, so they are already SUCCESS), `POST /suno/fetch {ids}` answering the
 * task records, `GET /suno/fetch/{id}` the bare data; errors as `{code, message, data:null}` with the HTTP
 * status. Tests move music tasks along with `advance` as Suno's feed would.
 */
export async function startSunoApi(secret: string) {
  const tasks = new Map<string, SunoProxyTask>();
  const calls: SunoCall[] = [];
  let seq = 0;
  let refuseNext: { status: number; code: string; message: string } | null = null;
  let fetchFailures = 0;
  const now = () => Math.floor(Date.now() / 1000);

  const server = await serveMock(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const path = url.pathname;
    const raw = req.method === 'POST' ? await read(req) : '';
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return answer(res, 400, 'invalid_request', 'invalid character in JSON', null);
    }
    calls.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
    const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (auth !== secret) return answer(res, 401, 'invalid_request', 'unauthorized secret token', null);

    if (req.method === 'POST' && path === '/suno/fetch') {
      if (fetchFailures > 0) {
        fetchFailures--;
        return answer(res, 500, 'internal_error', 'database is locked', null);
      }
      const ids: string[] = Array.isArray(body?.ids) ? body.ids : [];
      return answer(
        res,
        200,
        'success',
        '',
        ids.flatMap((id) => tasks.get(id) ?? []),
      );
    }
    let m = /^\/suno\/fetch\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const t = tasks.get(m[1]);
      return t
        ? answer(res, 200, 'success', '', t.data)
        : answer(res, 400, 'invalid_request', 'task not exist', null);
    }
    m = /^\/suno\/submit\/([^/]+)$/.exec(path);
    if (req.method !== 'POST' || !m) return answer(res, 404, 'invalid_request', `no route ${path}`, null);
    if (refuseNext) {
      const r = refuseNext;
      refuseNext = null;
      return answer(res, r.status, r.code, r.message, null);
    }
    const action = m[1].toUpperCase();
    if (action !== 'MUSIC' && action !== 'LYRICS')
      return answer(res, 400, 'invalid_request', 'invalid action', null);
    const at = new Date().toISOString();
    const record = (data: SunoProxyTask['data'], status: SunoProxyTask['status'], taskId = randomUUID()) => {
      tasks.set(taskId, {
        id: ++seq,
        created_at: at,
        updated_at: at,
        task_id: taskId,
        action,
        status,
        fail_reason: '',
        submit_time: now(),
        start_time: status === 'SUCCESS' ? now() : 0,
        finish_time: status === 'SUCCESS' ? now() : 0,
        search_item: '',
        data,
      });
      return taskId;
    };
    if (action === 'LYRICS') {
      if (!body?.prompt) return answer(res, 400, 'invalid_request', 'prompt is empty', null);
      const id = randomUUID();
      const title = 'Harbour Lights';
      const text = `[Verse]\n${body.prompt}\nThe harbour lights are calling me home\n\n[Chorus]\nHold on, hold on`;
      return answer(res, 200, 'success', '', record({ id, status: 'complete', title, text }, 'SUCCESS', id));
    }
    if (body?.continue_clip_id && !body?.task_id)
      return answer(res, 400, 'invalid_request', 'task_id is empty', null);
    const clip = (): SunoClip => {
      const id = randomUUID();
      return {
        id,
        video_url: '',
        audio_url: '',
        image_url: `${CDN}/image_${id}.png`,
        image_large_url: `${CDN}/image_large_${id}.png`,
        is_video_pending: false,
        major_model_version: 'v3',
        model_name: 'chirp-v3',
        metadata: {
          tags: String(body?.tags ?? ''),
          prompt: String(body?.prompt ?? ''),
          gpt_description_prompt: body?.gpt_description_prompt ?? null,
          audio_prompt_id: null,
          history: null,
          concat_history: null,
          type: 'gen',
          duration: null,
          refund_credits: null,
          stream: true,
          error_type: null,
          error_message: null,
        },
        is_liked: false,
        user_id: '6a5f1c3e-0c2b-4ad1-9e35-2b8f7d1a4c90',
        display_name: 'Stand-in',
        handle: 'standin',
        is_handle_updated: false,
        is_trashed: false,
        reaction: null,
        created_at: at,
        status: 'submitted',
        title: String(body?.title ?? ''),
        play_count: 0,
        upvote_count: 0,
        is_public: false,
      };
    };
    return answer(res, 200, 'success', '', record([clip(), clip()], 'NOT_START'));
  });

  return {
    url: server.url,
    tasks,
    calls,
    close: server.close,
    /** The next submit is refused with this HTTP status, code and message. */
    refuseNext(status: number, code: string, message: string) {
      refuseNext = { status, code, message };
    },
    /** The next n `POST /suno/fetch` calls fail with a 500. */
    failFetches(n: number) {
      fetchFailures = n;
    },
    /** Moves a music task's clips along as Suno's feed would; the task's status follows (api.go loopFetchTask). */
    advance(taskId: string, to: SunoClip['status'], errorMessage?: string) {
      const t = tasks.get(taskId);
      if (!t || !Array.isArray(t.data)) throw new Error(`no music task ${taskId}`);
      for (const c of t.data) {
        c.status = to;
        c.audio_url =
          to === 'streaming'
            ? `${AUDIOPIPE}/?item_id=${c.id}`
            : to === 'complete'
              ? `${CDN}/${c.id}.mp3`
              : '';
        if (to === 'complete') c.metadata.duration = 1;
        if (to === 'error') {
          c.metadata.error_type = 'moderation_failure';
          c.metadata.error_message = errorMessage ?? 'Unable to generate audio';
        }
      }
      t.status = TASK_STATUS[to];
      t.updated_at = new Date().toISOString();
      if (to === 'streaming' && !t.start_time) t.start_time = now();
      if (to === 'complete' || to === 'error') t.finish_time = now();
      if (to === 'error') t.fail_reason = errorMessage ?? 'Unable to generate audio';
    },
  };
}

export type SunoApi = Awaited<ReturnType<typeof startSunoApi>>;
