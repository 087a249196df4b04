import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Agent, request } from 'undici';

/**
 * Calibration for the benchmark: the least a Fastify + undici proxy can do (no auth, routing, billing or
 * logs). Its CPU time per request on the same machine is the floor the gateway's figure compares with.
 */
const upstream = process.env.BENCH_UPSTREAM as string;
const agent = new Agent({ keepAliveTimeout: 30_000 });
const app = Fastify();
app.post('/v1/chat/completions', async (req, reply) => {
  const res = await request(`${upstream}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-upstream' },
    body: JSON.stringify(req.body),
    dispatcher: agent,
  });
  reply.header('content-type', String(res.headers['content-type']));
  return reply.send(await res.body.text());
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ port: (app.server.address() as AddressInfo).port, key: 'none' });
process.on('message', (msg: { cmd: string }) => {
  if (msg.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send?.({ cpuUs: cpu.user + cpu.system, maxRssKb: process.resourceUsage().maxRSS });
  }
});
process.on('disconnect', () => process.exit(0));
