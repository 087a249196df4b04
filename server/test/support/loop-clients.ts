import Anthropic from '@anthropic-ai/sdk';
import { type Content, GoogleGenAI, type Part } from '@google/genai';
import OpenAI from 'openai';

/**
 * Two turns of a tool loop with thinking on, as each agent runs it through its official SDK: the first asks,
 * the second sends the answer's assistant turn back as the agent keeps it (Codex: the output items; Claude
 * Code: the content blocks; Gemini CLI: the parts without thought parts, which it drops from its history;
 * a chat client: content and tool_calls, without reasoning_content) with the tool's result. Resolves with the second turn's text.
 */
export type LoopClient = 'openai' | 'responses' | 'anthropic' | 'gemini';

const TOOL = {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};
const ASK = 'What is the weather in Paris?';
const RESULT = '18C, clear';

export function toolLoop(
  format: LoopClient,
  baseUrl: string,
  apiKey: string,
  model: string,
  stream: boolean,
) {
  if (format === 'openai')
    return chatLoop(new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 }), model, stream);
  if (format === 'responses')
    return responsesLoop(new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 }), model, stream);
  if (format === 'anthropic')
    return anthropicLoop(new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 0 }), model, stream);
  return geminiLoop(new GoogleGenAI({ apiKey, httpOptions: { baseUrl } }), model, stream);
}

async function responsesLoop(client: OpenAI, model: string, stream: boolean): Promise<string> {
  const turn = async (input: OpenAI.Responses.ResponseInput) => {
    const body = {
      model,
      input,
      store: false,
      reasoning: { effort: 'medium' as const, summary: 'auto' as const },
      include: ['reasoning.encrypted_content' as const],
      tools: [
        {
          type: 'function' as const,
          name: TOOL.name,
          description: TOOL.description,
          parameters: TOOL.schema,
          strict: false,
        },
      ],
    };
    return stream ? client.responses.stream(body).finalResponse() : client.responses.create(body);
  };
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: ASK }];
  const first = await turn(input);
  const call = first.output.find((o) => o.type === 'function_call');
  if (call?.type !== 'function_call') throw new Error('no function call in the first answer');
  const second = await turn([
    ...input,
    ...(first.output as OpenAI.Responses.ResponseInputItem[]),
    { type: 'function_call_output', call_id: call.call_id, output: RESULT },
  ]);
  return second.output_text;
}

async function anthropicLoop(client: Anthropic, model: string, stream: boolean): Promise<string> {
  const turn = (messages: Anthropic.MessageParam[]) => {
    const body = {
      model,
      max_tokens: 16384,
      thinking: { type: 'enabled' as const, budget_tokens: 4096 },
      tools: [
        {
          name: TOOL.name,
          description: TOOL.description,
          input_schema: TOOL.schema as Anthropic.Tool.InputSchema,
        },
      ],
      messages,
    };
    return stream ? client.messages.stream(body).finalMessage() : client.messages.create(body);
  };
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: ASK }];
  const first = await turn(messages);
  const call = first.content.find((b) => b.type === 'tool_use');
  if (call?.type !== 'tool_use') throw new Error('no tool_use in the first answer');
  const second = await turn([
    ...messages,
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: RESULT }] },
  ]);
  return second.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

async function geminiLoop(ai: GoogleGenAI, model: string, stream: boolean): Promise<string> {
  const turn = async (contents: Content[]): Promise<Part[]> => {
    const params = {
      model,
      contents,
      config: {
        tools: [
          {
            functionDeclarations: [
              { name: TOOL.name, description: TOOL.description, parametersJsonSchema: TOOL.schema },
            ],
          },
        ],
        thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
      },
    };
    if (!stream) return (await ai.models.generateContent(params)).candidates?.[0]?.content?.parts ?? [];
    const parts: Part[] = [];
    for await (const chunk of await ai.models.generateContentStream(params))
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    return parts;
  };
  const contents: Content[] = [{ role: 'user', parts: [{ text: ASK }] }];
  const first = await turn(contents);
  const call = first.find((p) => p.functionCall)?.functionCall;
  if (!call) throw new Error('no functionCall in the first answer');
  const second = await turn([
    ...contents,
    { role: 'model', parts: first.filter((p) => !p.thought) },
    {
      role: 'user',
      parts: [{ functionResponse: { id: call.id, name: call.name, response: { result: RESULT } } }],
    },
  ]);
  return second.map((p) => (p.thought ? '' : (p.text ?? ''))).join('');
}

async function chatLoop(client: OpenAI, model: string, stream: boolean): Promise<string> {
  const turn = async (messages: OpenAI.ChatCompletionMessageParam[]) => {
    const body = {
      model,
      messages,
      reasoning_effort: 'medium' as const,
      tools: [
        {
          type: 'function' as const,
          function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema },
        },
      ],
    };
    if (!stream) return (await client.chat.completions.create(body)).choices[0].message;
    return (await client.chat.completions.stream({ ...body, stream: true }).finalChatCompletion()).choices[0]
      .message;
  };
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: ASK }];
  const first = await turn(messages);
  const call = first.tool_calls?.[0];
  if (call?.type !== 'function') throw new Error('no tool call in the first answer');
  const second = await turn([
    ...messages,
    { role: 'assistant', content: first.content, tool_calls: first.tool_calls },
    { role: 'tool', tool_call_id: call.id, content: RESULT },
  ]);
  return second.content ?? '';
}
