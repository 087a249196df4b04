import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an Epay-compatible payment gateway on 127.0.0.1. It speaks the real protocol:
 * the browser POSTs the signed purchase form to /submit.php, the gateway checks the MD5 signature with the
 * merchant key and shows a cashier page; "paying" sends the signed asynchronous notification (GET with the
 * parameters in the query, as Epay does) to the order's notify_url and returns the buyer to return_url.
 */
export interface FakeEpay {
  url: string;
  /** Orders received through /submit.php, by out_trade_no. */
  orders: Map<string, Record<string, string>>;
  /** Submissions refused because their signature did not verify. */
  rejected: Array<Record<string, string>>;
  /** Sends the TRADE_SUCCESS notification for an order `times` times (all at once when `parallel`). */
  pay(
    outTradeNo: string,
    opts?: { times?: number; parallel?: boolean; override?: Record<string, string>; signWith?: string },
  ): Promise<string[]>;
  /** Sends an arbitrary notification (already signed or not) to a notify URL; returns the plain-text reply. */
  notify(notifyUrl: string, params: Record<string, string>, method?: 'GET' | 'POST'): Promise<string>;
  close(): Promise<void>;
}

export function epayMd5(params: Record<string, string>, key: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return createHash('md5')
    .update(text + key)
    .digest('hex');
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

const html = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Fake Epay</title></head><body>${body}</body></html>`;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startFakeEpay(opts: {
  pid: string;
  key: string;
  duplicates?: number;
}): Promise<FakeEpay> {
  const orders = new Map<string, Record<string, string>>();
  const rejected: Array<Record<string, string>> = [];
  let seq = 0;

  const notify: FakeEpay['notify'] = async (notifyUrl, params, method = 'GET') => {
    if (method === 'GET') {
      const u = new URL(notifyUrl);
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      return (await fetch(u)).text();
    }
    const res = await fetch(notifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    return res.text();
  };

  const pay: FakeEpay['pay'] = async (outTradeNo, o = {}) => {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`fake epay: no order ${outTradeNo}`);
    const params: Record<string, string> = {
      pid: order.pid,
      trade_no: `2026${String(++seq).padStart(10, '0')}`,
      out_trade_no: outTradeNo,
      type: order.type,
      name: order.name,
      money: order.money,
      trade_status: 'TRADE_SUCCESS',
      ...o.override,
    };
    params.sign = epayMd5(params, o.signWith ?? opts.key);
    params.sign_type = 'MD5';
    const times = o.times ?? 1;
    if (o.parallel) return Promise.all(Array.from({ length: times }, () => notify(order.notify_url, params)));
    const out: string[] = [];
    for (let i = 0; i < times; i++) out.push(await notify(order.notify_url, params));
    return out;
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (req.method === 'POST' && url.pathname === '/submit.php') {
        const form = await readForm(req);
        if (form.pid !== opts.pid || form.sign !== epayMd5(form, opts.key)) {
          rejected.push(form);
          res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(html('<h1>签名错误</h1>'));
          return;
        }
        orders.set(form.out_trade_no, form);
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            html(
              `<h1>收银台</h1><p id="order">${esc(form.out_trade_no)}</p><p id="money">${esc(form.money)}</p><p id="type">${esc(form.type)}</p>` +
                `<form method="post" action="/pay"><input type="hidden" name="out_trade_no" value="${esc(form.out_trade_no)}"><button id="pay" type="submit">确认支付</button></form>`,
            ),
          );
        return;
      }
      if (req.method === 'POST' && url.pathname === '/pay') {
        const { out_trade_no } = await readForm(req);
        const order = orders.get(out_trade_no);
        if (!order) {
          res.writeHead(404).end('no such order');
          return;
        }
        // Real gateways retry their notification; send it more than once to prove it credits once.
        await pay(out_trade_no, { times: opts.duplicates ?? 2 });
        const back = new URL(order.return_url);
        back.searchParams.set('out_trade_no', out_trade_no);
        back.searchParams.set('trade_status', 'TRADE_SUCCESS');
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      res.writeHead(404).end('not found');
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    orders,
    rejected,
    pay,
    notify,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
