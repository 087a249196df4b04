import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';
import { anthropicFrames, geminiFrames, responsesFrames } from './reasoning-streams.ts';

/**
 * Anthropic, OpenAI Responses and Gemini upstreams for a tool loop with thinking on. A first turn (no tool
 * result yet) is answered with thinking and a call of the request's first tool, and the reasoning artifact
 * carries a signature this mock has just issued: an Anthropic thinking block plus a redacted_thinking block,
 * a Responses reasoning item with encrypted_content, a Gemini functionCall with its thoughtSignature. The
 * next turn is refused as the real servers refuse it when what was issued does not come back unchanged:
 * - Anthropic: 400 on a thinking signature (for that very text) or redacted data it did not issue, and, with
 *   thinking on, on a last assistant turn that calls tools without opening with its thinking.
 * - Responses: 400 invalid_encrypted_content on encrypted_content it did not issue, and (stricter than OpenAI,
 *   to catch reasoning lost on the way) on a function call replayed without its reasoning item.
 * - Gemini: 400 on a step whose first functionCall lacks a thoughtSignature it issued (Google also takes its
 *   documented skip value; this mock does not, since that value gives the model's thinking up).
 */
export interface ReasoningMock {
  url: string;
  requests: Array<{ path: string; body: any }>;
  issued: {
    anthropic: Array<{ thinking: string; signature: string; redacted: string }>;
    responses: string[];
    /** The ids of the reasoning items issued, in order. */
    responseItems: string[];
    gemini: string[];
  };
  close(): Promise<void>;
}

const sig = () => randomBytes(48).toString('base64');
const THINKING = 'The user wants the weather. I should call the tool with the city.';

function send(res: ServerResponse, status: number, body: unknown, frames?: string[]) {
  if (frames) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return void res.end(frames.join(''));
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startReasoningMock(): Promise<ReasoningMock> {
  const mock: ReasoningMock = {
    url: '',
    requests: [],
    issued: { anthropic: [], responses: [], responseItems: [], gemini: [] },
    close: async () => {},
  };

  function anthropic(body: any, res: ServerResponse) {
    const refuse = (message: string) =>
      send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
    const msgs: any[] = body.messages;
    const blocks = (m: any) => (typeof m.content === 'string' ? [] : m.content);
    for (const [i, m] of msgs.entries())
      for (const [j, b] of blocks(m).entries()) {
        if (
          b.type === 'thinking' &&
          !mock.issued.anthropic.some((x) => x.signature === b.signature && x.thinking === b.thinking)
        )
          return refuse(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
        if (b.type === 'redacted_thinking' && !mock.issued.anthropic.some((x) => x.redacted === b.data))
          return refuse(`messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`);
      }
    const lastAssistant = msgs.filter((m) => m.role === 'assistant').at(-1);
    const first = lastAssistant ? blocks(lastAssistant)[0] : undefined;
    if (
      body.thinking?.type === 'enabled' &&
      lastAssistant &&
      blocks(lastAssistant).some((b: any) => b.type === 'tool_use') &&
      first?.type !== 'thinking' &&
      first?.type !== 'redacted_thinking'
    )
      return refuse(
        'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.',
      );
    const toolTurn = !msgs.some((m) => blocks(m).some((b: any) => b.type === 'tool_result'));
    let content: any[] = [{ type: 'text', text: 'It is 18C in Paris.' }];
    if (toolTurn) {
      const issued = { thinking: THINKING, signature: sig(), redacted: sig() };
      mock.issued.anthropic.push(issued);
      content = [
        { type: 'thinking', thinking: issued.thinking, signature: issued.signature },
        { type: 'redacted_thinking', data: issued.redacted },
        {
          type: 'tool_use',
          id: `toolu_${randomBytes(8).toString('hex')}`,
          name: body.tools[0].name,
          input: { location: 'Paris' },
        },
      ];
    }
    const msg = {
      id: `msg_${randomBytes(8).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: toolTurn ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 60,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 40,
      },
    };
    send(res, 200, msg, body.stream ? anthropicFrames(msg) : undefined);
  }

  function responses(body: any, res: ServerResponse) {
    const refuse = (message: string, code: string) =>
      send(res, 400, { error: { message, type: 'invalid_request_error', param: 'input', code } });
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    for (const [i, item] of input.entries()) {
      if (item.type === 'reasoning' && !mock.issued.responses.includes(item.encrypted_content))
        return refuse('The encrypted content could not be verified.', 'invalid_encrypted_content');
      if (item.type === 'function_call' && body.reasoning && input[i - 1]?.type !== 'reasoning')
        return refuse(
          `Item '${item.call_id}' of type 'function_call' was provided without its required 'reasoning' item.`,
          'missing_reasoning',
        );
    }
    const toolTurn = !input.some((it) => it.type === 'function_call_output');
    const id = `resp_${randomBytes(8).toString('hex')}`;
    let output: any[] = [
      {
        id: 'msg_2',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'It is 18C in Paris.', annotations: [] }],
      },
    ];
    if (toolTurn) {
      const enc = `gAAAAA${sig()}`;
      const rs = `rs_${randomBytes(8).toString('hex')}`;
      mock.issued.responses.push(enc);
      mock.issued.responseItems.push(rs);
      output = [
        {
          id: rs,
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: THINKING }],
          encrypted_content: enc,
        },
        {
          id: 'fc_1',
          type: 'function_call',
          status: 'completed',
          call_id: `call_${randomBytes(6).toString('hex')}`,
          name: body.tools[0].name,
          arguments: '{"location":"Paris"}',
        },
      ];
    }
    const resp = {
      id,
      object: 'response',
      created_at: 1783313886,
      status: 'completed',
      model: body.model,
      output,
      usage: {
        input_tokens: 60,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 20 },
        total_tokens: 100,
      },
    };
    send(res, 200, resp, body.stream ? responsesFrames(resp) : undefined);
  }

  function gemini(body: any, stream: boolean, res: ServerResponse) {
    const refuse = (message: string) =>
      send(res, 400, { error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
    for (const [i, c] of body.contents.entries()) {
      const call = c.parts.find((p: any) => p.functionCall);
      if (c.role === 'model' && call && !mock.issued.gemini.includes(call.thoughtSignature))
        return refuse(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${call.functionCall.name}\` , position ${i + 1}.`,
        );
    }
    const toolTurn = !body.contents.some((c: any) => c.parts.some((p: any) => p.functionResponse));
    let parts: any[] = [{ text: 'It is 18C in Paris.' }];
    if (toolTurn) {
      const s = sig();
      mock.issued.gemini.push(s);
      const name = body.tools[0].functionDeclarations[0].name;
      parts = [
        { text: THINKING, thought: true },
        { functionCall: { name, args: { location: 'Paris' } }, thoughtSignature: s },
      ];
    }
    const answer = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 60,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 20,
        totalTokenCount: 100,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: randomBytes(8).toString('hex'),
    };
    send(res, 200, answer, stream ? geminiFrames(answer) : undefined);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0];
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    mock.requests.push({ path, body });
    if (path === '/v1/messages') return anthropic(body, res);
    if (path === '/v1/responses') return responses(body, res);
    const g = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.exec(path);
    if (g) return gemini(body, g[1] === 'streamGenerateContent', res);
    send(res, 404, { error: { message: `mock has no ${path}` } });
  }

  const served = await serveMock(handle);
  mock.url = served.url;
  mock.close = served.close;
  return mock;
}
