import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FormatsMock, startFormatsMock } from './mock-formats.ts';
import { type ReasoningMock, startReasoningMock } from './mock-reasoning.ts';
import { serveMock } from './mock-server.ts';
import { type MockUpstream, startMockUpstream } from './mock-upstream.ts';

/**
 * One provider address that answers everything a compatibility check sends, by putting the recording mocks
 * together: OpenAI chat goes to the chat mock (its key picks a misbehaviour, e.g. sk-midstream breaks
 * streams); Anthropic, Responses and Gemini calls with tools go to the reasoning mock (a tool call with
 * thinking it signed, refusing a next turn whose signature does not come back), the rest to the formats mock
 * (keys, required fields, recorded answers). `dropTools` makes it a provider that ignores tools: it takes
 * them out of every request before answering, so no answer calls one. `mangleSignatures` makes the
 * signatures its tool answers carry differ from the ones the reasoning mock issued, so the next turn is refused.
 */
export interface CompatMock {
  url: string;
  dropTools: boolean;
  /** A provider (or a proxy before it) that hands out signatures other than the ones it checks. */
  mangleSignatures: boolean;
  chat: MockUpstream;
  formats: FormatsMock;
  reasoning: ReasoningMock;
  close(): Promise<void>;
}

export async function startCompatMock(): Promise<CompatMock> {
  const chat = await startMockUpstream();
  const formats = await startFormatsMock();
  const reasoning = await startReasoningMock();
  const mock: CompatMock = {
    url: '',
    dropTools: false,
    mangleSignatures: false,
    chat,
    formats,
    reasoning,
    close: async () => {},
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString();
    const body = raw ? JSON.parse(raw) : {};
    if (mock.dropTools) {
      delete body.tools;
      delete body.tool_choice;
      delete body.toolConfig;
    }
    const path = (req.url ?? '').split('?')[0];
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const target = path.endsWith('/chat/completions') ? chat.url : tools ? reasoning.url : formats.url;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'content-length' && k !== 'host' && k !== 'connection')
        headers[k] = v;
    const upstream = await fetch(target + (req.url ?? ''), {
      method: req.method,
      headers,
      body: req.method === 'GET' ? undefined : JSON.stringify(body),
    });
    res.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    if (mock.mangleSignatures && target === reasoning.url) {
      const text = await upstream.text();
      return void res.end(
        text.replace(/"(signature|encrypted_content|thoughtSignature)":"[^"]*"/g, '"$1":"bWFuZ2xlZA=="'),
      );
    }
    // Passed on as it comes, so a stream the mock behind breaks off breaks off here too.
    try {
      const reader = upstream.body?.getReader();
      for (let r = await reader?.read(); r && !r.done; r = await reader?.read()) res.write(r.value);
      res.end();
    } catch {
      res.destroy();
    }
  }

  const served = await serveMock(handle);
  mock.url = served.url;
  mock.close = async () => {
    await served.close();
    await Promise.all([chat.close(), formats.close(), reasoning.close()]);
  };
  return mock;
}
