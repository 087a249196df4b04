import { createServer, type Server } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './support/budget-relay.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** An OTLP/HTTP receiver on loopback: keeps every span posted to /v1/traces (JSON encoding). */
async function startReceiver() {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      bodies.push(text);
      const body = JSON.parse(text);
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, spans, bodies, close: () => new Promise((r) => server.close(r)) };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v && (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue));
};

describe('relay traces over OTLP/HTTP', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let mock: MockUpstream;
  let server: TestServer;
  let client: OpenAI;
  const PROMPT = 'a prompt that must never reach a span';

  beforeAll(async () => {
    receiver = await startReceiver();
    mock = await startMockUpstream();
    server = await startServer({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, BATCH_UPDATE_INTERVAL: '3600' },
    });
    const user = await seedUser(server.ctx, { quota: 10_000_000 });
    const token = await seedToken(server.ctx, { userId: user.id, remain: 10_000_000 });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-upstream-good', models: ['gpt-4o'] });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-badkey-revoked', models: ['gpt-4o-mini'] });
    client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await receiver?.close();
  });

  it('continues the caller traceparent, passes it upstream, and exports the stages with GenAI attributes', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const answer = await client.chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] },
      { headers: { traceparent: `00-${traceId}-${parentId}-01` } },
    );
    expect(answer.choices.length).toBeGreaterThan(0);
    await until(() => receiver.spans.some((s) => s.name === 'chat gpt-4o'), 8000);
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const byName = (n: string) => spans.find((s) => s.name === n)!;
    const root = byName('chat gpt-4o');
    expect(root.parentSpanId).toBe(parentId);
    expect(root.kind).toBe(2); // SERVER
    expect(attr(root, 'gen_ai.operation.name')).toBe('chat');
    expect(attr(root, 'gen_ai.request.model')).toBe('gpt-4o');
    expect(attr(root, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
    expect(attr(root, 'gen_ai.usage.output_tokens')).toBeGreaterThan(0);
    expect(root.attributes.find((a) => a.key === 'gen_ai.response.finish_reasons')?.value).toEqual({
      arrayValue: { values: [{ stringValue: 'stop' }] },
    });
    expect(attr(root, 'http.response.status_code')).toBe(200);
    for (const stage of ['admission', 'routing', 'settle'])
      expect(byName(stage).parentSpanId).toBe(root.spanId);
    const attempt = byName('upstream gpt-4o');
    expect(attempt.parentSpanId).toBe(root.spanId);
    expect(attempt.kind).toBe(3); // CLIENT
    expect(attr(attempt, 'gen_ai.provider.name')).toBeTruthy();
    expect(attr(attempt, 'modelgate.channel.id')).toBe(1);
    expect(byName('first byte').parentSpanId).toBe(attempt.spanId);
    const upstream = mock.requests.at(-1)!;
    expect(upstream.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);
    expect(receiver.bodies.join('')).not.toContain(PROMPT);
  });

  it('a relayed stream records why the model stopped, read from its finish chunk', async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: {} } }];
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], tools, stream: true },
      { headers: { traceparent: `00-${traceId}-00f067aa0ba902b8-01` } },
    );
    const reasons: Array<string | null> = [];
    for await (const chunk of stream) for (const c of chunk.choices) reasons.push(c.finish_reason);
    // Not "stop", which a stream ending with [DONE] would read as anyway.
    expect(reasons).toContain('tool_calls');
    await until(() => receiver.spans.some((s) => s.traceId === traceId && s.name === 'chat gpt-4o'), 8000);
    const root = receiver.spans.find((s) => s.traceId === traceId && s.name === 'chat gpt-4o')!;
    expect(root.attributes.find((a) => a.key === 'gen_ai.response.finish_reasons')?.value).toEqual({
      arrayValue: { values: [{ stringValue: 'tool_calls' }] },
    });
  });

  it('a failed upstream attempt is an error span under its request', async () => {
    const before = receiver.spans.length;
    await expect(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow();
    await until(() => receiver.spans.slice(before).some((s) => s.name === 'chat gpt-4o-mini'), 8000);
    const mine = receiver.spans.slice(before);
    const root = mine.find((s) => s.name === 'chat gpt-4o-mini')!;
    const attempt = mine.find((s) => s.name === 'upstream gpt-4o-mini')!;
    expect(attempt.parentSpanId).toBe(root.spanId);
    expect(attempt.status?.code).toBe(2); // ERROR
    expect(attr(attempt, 'modelgate.channel.id')).toBe(2);
    expect(root.status?.code).toBe(2);
  });

  it('a request without traceparent starts its own trace and a refused one is an error', async () => {
    const before = receiver.spans.length;
    await expect(
      client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow();
    await until(() => receiver.spans.slice(before).some((s) => s.name === 'chat no-such-model'), 8000);
    const root = receiver.spans.slice(before).find((s) => s.name === 'chat no-such-model')!;
    expect(root.parentSpanId ?? '').toBe('');
    expect(attr(root, 'http.response.status_code')).toBe(404);
    expect(root.status?.code).toBe(2); // ERROR
  });
});
