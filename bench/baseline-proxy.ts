import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';

/**
 * Calibration for the benchmark: the least a Node proxy can do for the same exchange (no auth, routing,
 * billing or logs): node:http in, the JSON body parsed, undici out with the same client calls as the gateway,
 * the answer parsed for its usage and sent back. Its CPU time per request is the floor the gateway's figure
 * compares with on the same machine.
 */
const upstream = process.env.BENCH_UPSTREAM as string;
const agent = new Agent({ keepAliveTimeout: 30_000 });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const up = await agent.request({
      origin: upstream,
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-upstream' },
      body: JSON.stringify(body),
    });
    const text = await up.body.text();
    JSON.parse(text);
    res.writeHead(200, {
      'content-type': String(up.headers['content-type']),
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port, key: 'none' });
});
process.on('message', (msg: { cmd: string }) => {
  if (msg.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send?.({ cpuUs: cpu.user + cpu.system, maxRssKb: process.resourceUsage().maxRSS });
  }
});
process.on('disconnect', () => process.exit(0));
