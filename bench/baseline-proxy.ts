import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The floor for any Node gateway, measured in the same run: a bare node:http proxy with a keep-alive agent
 * that pipes the request and the answer through as bytes and does nothing else (no auth, routing, parsing,
 * billing or logs).
 */
const upstream = new URL(process.env.BENCH_UPSTREAM as string);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const server = createServer((req, res) => {
  const up = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: req.method,
      headers: { 'content-type': String(req.headers['content-type'] ?? 'application/json') },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port, key: 'none' });
});
process.on('message', (msg: { cmd: string; id?: number }) => {
  if (msg.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send?.({ cpuUs: cpu.user + cpu.system, maxRssKb: process.resourceUsage().maxRSS, id: msg.id });
  }
});
process.on('disconnect', () => process.exit(0));
