import { isObj, type Obj } from '../../formats/chat/check.ts';
import { encodeRequest as chatRequest } from '../../formats/chat/request.ts';
import type { CodecContext, HubRequest } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

/**
 * A hub request as Hunyuan's ChatCompletions body (Tencent Cloud's PascalCase names). Messages are built by
 * chat's encoder and renamed: roles, tool calls and tool results mean the same in both; a tool's JSON
 * Schema goes as a string. Hunyuan has no max_tokens; its Seed runs from 1 to 10000.
 */
export function encodeRequest(req: HubRequest, ctx: CodecContext): Record<string, unknown> {
  const chat = chatRequest({ ...req, stream: false }, ctx);
  const body: Obj = {
    Model: req.model,
    Messages: (chat.messages as Obj[]).map(hunyuanMessage),
    Stream: req.stream,
  };
  if (req.temperature !== undefined) body.Temperature = req.temperature;
  if (req.topP !== undefined) body.TopP = req.topP;
  if (req.stop?.length) body.Stop = req.stop;
  if (req.seed !== undefined && req.seed >= 1 && req.seed <= 10000) body.Seed = req.seed;
  if (Array.isArray(chat.tools) && chat.tools.length) {
    const tools = (chat.tools as Obj[]).map((t) => hunyuanTool(isObj(t.function) ? t.function : {}));
    body.Tools = tools;
    const choice = req.toolChoice;
    if (choice?.type === 'auto' || choice?.type === 'none') body.ToolChoice = choice.type;
    else if (choice?.type === 'tool') {
      body.ToolChoice = 'custom';
      body.CustomTool = tools.find((t) => (t.Function as Obj).Name === choice.name);
    }
  }
  return body;
}

function hunyuanTool(f: Obj): Obj {
  return {
    Type: 'function',
    Function: {
      Name: f.name,
      ...(typeof f.description === 'string' ? { Description: f.description } : {}),
      Parameters: JSON.stringify(f.parameters ?? { type: 'object', properties: {} }),
    },
  };
}

/** One chat message as Hunyuan's; content with images goes as `Contents` (hunyuan-vision). */
function hunyuanMessage(m: Obj): Obj {
  const out: Obj = { Role: m.role };
  if (Array.isArray(m.content)) {
    out.Contents = m.content.map((p) => {
      if (isObj(p) && p.type === 'text') return { Type: 'text', Text: p.text };
      if (isObj(p) && p.type === 'image_url' && isObj(p.image_url))
        return { Type: 'image_url', ImageUrl: { Url: p.image_url.url } };
      throw badRequest('Hunyuan takes text and images only', 'invalid_value', 'messages');
    });
  } else out.Content = typeof m.content === 'string' ? m.content : '';
  if (Array.isArray(m.tool_calls))
    out.ToolCalls = m.tool_calls.map((tc: Obj) => {
      const fn = isObj(tc.function) ? tc.function : {};
      return { Id: tc.id, Type: 'function', Function: { Name: fn.name, Arguments: fn.arguments } };
    });
  if (typeof m.tool_call_id === 'string') out.ToolCallId = m.tool_call_id;
  return out;
}
