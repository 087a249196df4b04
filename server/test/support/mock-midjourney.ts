import type { IncomingMessage, ServerResponse } from 'node:http';
import { crc32, deflateSync } from 'node:zlib';
import { serveMock } from './mock-server.ts';

/** A task as midjourney-proxy keeps and reports it (Task.java, plus the Plus edition's buttons). */
export interface ProxyTask {
  id: string;
  action: string;
  status: 'NOT_START' | 'SUBMITTED' | 'MODAL' | 'IN_PROGRESS' | 'FAILURE' | 'SUCCESS' | 'CANCEL';
  prompt: string;
  promptEn: string;
  description: string;
  state: string | null;
  submitTime: number;
  startTime: number | null;
  finishTime: number | null;
  imageUrl: string | null;
  progress: string;
  failReason: string | null;
  buttons: Array<{ customId: string; emoji: string; label: string; type: number; style: number }>;
  properties: Record<string, unknown>;
}

export interface ProxyCall {
  method: string;
  path: string;
  secret: string | undefined;
  body: any;
}

/** A PNG of w x h pixels coloured by `rgb(x, y)`. */
function png(w: number, h: number, rgb: (x: number, y: number) => [number, number, number]): Buffer {
  const rows = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rows.set(rgb(x, y), y * (w * 3 + 1) + 1 + x * 3);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What the image host serves for every task: a small sunset-coloured gradient. */
export const PNG = png(96, 96, (x, y) => [
  200 + Math.round((x / 95) * 55),
  90 + Math.round((y / 95) * 100),
  120,
]);

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

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/**
 * A local stand-in for a midjourney-proxy server (context path /mj): the submit endpoints answer
 * SubmitResultVO (`{code, description, result, properties}`: 1 submitted, 4 validation error, 3 related task
 * missing, 23 queue full...), tasks are read with /mj/task/{id}/fetch and /mj/task/list-by-condition, a
 * wrong mj-api-secret gets a bare 401 as the proxy's interceptor answers, and a Plus speed prefix
 * (/mj-fast/mj/...) is accepted. Tests move tasks along with `advance` as Discord would.
 */
export async function startMidjourneyProxy(secret: string) {
  const tasks = new Map<string, ProxyTask>();
  const calls: ProxyCall[] = [];
  let seq = 0;
  let refuseNext: { code: number; description: string; status?: number } | null = null;
  let listFailures = 0;
  const server = await serveMock(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const raw = req.method === 'POST' ? await read(req) : '';
    const body = raw ? JSON.parse(raw) : undefined;
    const path = url.pathname;
    calls.push({ method: req.method ?? 'GET', path, secret: req.headers['mj-api-secret'] as string, body });
    if (path.startsWith('/images/')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
      return void res.end(PNG);
    }
    if (req.headers['mj-api-secret'] !== secret) {
      res.writeHead(401);
      return void res.end();
    }
    const local = path.replace(/^\/mj-(fast|turbo|relax)\/mj\//, '/mj/');
    if (req.method === 'POST' && local === '/mj/task/list-by-condition') {
      if (listFailures > 0) {
        listFailures--;
        return json(res, 500, { error: 'Internal Server Error' });
      }
      const ids: string[] = Array.isArray(body?.ids) ? body.ids : [];
      return json(
        res,
        200,
        ids.flatMap((id) => tasks.get(id) ?? []),
      );
    }
    let m = /^\/mj\/task\/([^/]+)\/fetch$/.exec(local);
    if (m) {
      const t = tasks.get(m[1]);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(t ? JSON.stringify(t) : '');
    }
    m = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(local);
    if (m) {
      return tasks.has(m[1])
        ? json(res, 200, { code: 1, description: '成功', result: '2736581539' })
        : json(res, 200, { code: 3, description: '任务不存在', result: null });
    }
    m = /^\/mj\/(submit\/[a-z-]+|insight-face\/swap)$/.exec(local);
    if (!m || req.method !== 'POST') return json(res, 404, { error: 'Not Found', path });
    if (refuseNext) {
      const r = refuseNext;
      refuseNext = null;
      return json(res, r.status ?? 200, {
        code: r.code,
        description: r.description,
        result: null,
        properties: {},
      });
    }
    const kind = m[1];
    if (kind === 'submit/imagine' && !String(body?.prompt ?? '').trim())
      return json(res, 200, { code: 4, description: 'prompt不能为空', result: null, properties: {} });
    if (kind === 'submit/upload-discord-images')
      return json(res, 200, {
        code: 1,
        description: '上传成功',
        result: (body.base64Array as string[]).map((_, i) => `${server.url}/images/upload-${i}.png`),
      });
    let action = kind.endsWith('imagine') ? 'IMAGINE' : kind.endsWith('describe') ? 'DESCRIBE' : 'BLEND';
    if (kind === 'submit/change' || kind === 'submit/simple-change' || kind === 'submit/action') {
      const taskId = kind === 'submit/simple-change' ? String(body.content).split(' ')[0] : body.taskId;
      const target = tasks.get(taskId);
      if (!target)
        return json(res, 200, {
          code: 3,
          description: '关联任务不存在或已失效',
          result: null,
          properties: {},
        });
      if (target.status !== 'SUCCESS')
        return json(res, 200, { code: 4, description: '关联任务状态错误', result: null, properties: {} });
      action = kind === 'submit/change' ? body.action : 'UPSCALE';
    }
    const id = `${1_720_000_000_000 + ++seq}${String(seq % 1000).padStart(3, '0')}`;
    tasks.set(id, {
      id,
      action,
      status: 'SUBMITTED',
      prompt: String(body?.prompt ?? ''),
      promptEn: String(body?.prompt ?? ''),
      description: `/${action.toLowerCase()} ${body?.prompt ?? ''}`.trim(),
      state: body?.state ?? null,
      submitTime: Date.now(),
      startTime: null,
      finishTime: null,
      imageUrl: null,
      progress: '0%',
      failReason: null,
      buttons: [],
      properties: { notifyHook: body?.notifyHook ?? null, discordInstanceId: '1118138338562560102' },
    });
    return json(res, 200, {
      code: 1,
      description: '提交成功',
      result: id,
      properties: { discordInstanceId: '1118138338562560102' },
    });
  });

  return {
    url: server.url,
    tasks,
    calls,
    close: server.close,
    /** The next submit is refused with this proxy code (and HTTP status, 200 unless given). */
    refuseNext(code: number, description: string, status?: number) {
      refuseNext = { code, description, status };
    },
    /** The next n list-by-condition calls fail with a 500. */
    failLists(n: number) {
      listFailures = n;
    },
    /** Moves a task along as Discord would: progress, then a final image or a failure. */
    advance(id: string, to: 'progress' | 'success' | 'failure', arg?: string) {
      const t = tasks.get(id);
      if (!t) throw new Error(`no task ${id}`);
      if (to === 'progress') {
        t.status = 'IN_PROGRESS';
        t.startTime ??= Date.now();
        t.progress = arg ?? '45%';
        t.imageUrl = `${server.url}/images/${id}-preview.webp`;
      } else if (to === 'success') {
        t.status = 'SUCCESS';
        t.progress = '100%';
        t.finishTime = Date.now();
        t.imageUrl = `${server.url}/images/${id}.png`;
        t.properties.finalPrompt = `${t.prompt} --v 6`;
        t.buttons = [1, 2, 3, 4].map((i) => ({
          customId: `MJ::JOB::upsample::${i}::0c4b1e3c-93b0-4b0e-9b1e-b3f1c1f2a7d${i}`,
          emoji: '',
          label: `U${i}`,
          type: 2,
          style: 2,
        }));
      } else {
        t.status = 'FAILURE';
        t.progress = '';
        t.finishTime = Date.now();
        t.failReason = arg ?? '[Invalid parameter] Invalid value';
      }
    },
    /** Posts the task to the notify hook it was submitted with, as the proxy's NotifyService does. */
    async notify(id: string) {
      const t = tasks.get(id);
      const hook = t?.properties.notifyHook;
      if (typeof hook !== 'string') throw new Error(`task ${id} has no notify hook`);
      const res = await fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(t),
      });
      return res.status;
    },
  };
}

export type MidjourneyProxy = Awaited<ReturnType<typeof startMidjourneyProxy>>;
