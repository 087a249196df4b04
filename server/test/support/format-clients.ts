import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';

/**
 * The four client formats as their official SDKs speak them, reduced to what a user checks in an answer:
 * its text, thinking and tool calls. Each case asks for the same thing in its client's own words.
 */
export interface Ask {
  stream?: boolean;
  tools?: boolean;
  thinking?: boolean;
  image?: boolean;
}

export interface Parsed {
  text: string;
  thinking: string;
  calls: Array<{ name: string; args: unknown }>;
}

export type ClientFormat = 'openai' | 'anthropic' | 'gemini' | 'responses';

/** A 1x1 PNG. */
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG_URL = `data:image/png;base64,${PNG}`;

const WEATHER = {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: {
    type: 'object',
    properties: { location: { type: 'string', description: 'City name' } },
    required: ['location'],
  },
};

const PROMPT = 'Hello, how are you?';
const IMAGE_PROMPT = 'What is in this image?';

const parseArgs = (s: string) => (s.trim() ? JSON.parse(s) : {});

export interface FormatClient {
  ask(model: string, a: Ask): Promise<Parsed>;
}

export function formatClient(format: ClientFormat, baseUrl: string, apiKey: string): FormatClient {
  if (format === 'openai') return chatClient(new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 }));
  if (format === 'responses')
    return responsesClient(new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 }));
  if (format === 'anthropic')
    return anthropicClient(new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 0 }));
  return geminiClient(new GoogleGenAI({ apiKey, httpOptions: { baseUrl } }));
}

function chatClient(client: OpenAI): FormatClient {
  return {
    async ask(model, a) {
      const body: OpenAI.ChatCompletionCreateParamsNonStreaming = {
        model,
        messages: [
          {
            role: 'user',
            content: a.image
              ? [
                  { type: 'text', text: IMAGE_PROMPT },
                  { type: 'image_url', image_url: { url: PNG_URL } },
                ]
              : PROMPT,
          },
        ],
      };
      if (a.tools)
        body.tools = [
          {
            type: 'function',
            function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema },
          },
        ];
      if (a.thinking) body.reasoning_effort = 'high';
      const out: Parsed = { text: '', thinking: '', calls: [] };
      if (!a.stream) {
        const r = await client.chat.completions.create(body);
        const m = r.choices[0].message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
        out.text = m.content ?? '';
        out.thinking = m.reasoning_content ?? '';
        for (const t of m.tool_calls ?? [])
          if (t.type === 'function')
            out.calls.push({ name: t.function.name, args: parseArgs(t.function.arguments) });
        return out;
      }
      const stream = await client.chat.completions.create({
        ...body,
        stream: true,
        stream_options: { include_usage: true },
      });
      const args: string[] = [];
      for await (const chunk of stream) {
        const d = chunk.choices[0]?.delta as
          | (OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string })
          | undefined;
        if (!d) continue;
        out.text += d.content ?? '';
        out.thinking += d.reasoning_content ?? '';
        for (const t of d.tool_calls ?? []) {
          if (t.function?.name) out.calls[t.index] = { name: t.function.name, args: undefined };
          args[t.index] = (args[t.index] ?? '') + (t.function?.arguments ?? '');
        }
      }
      out.calls.forEach((c, i) => {
        c.args = parseArgs(args[i] ?? '');
      });
      return out;
    },
  };
}

function responsesClient(client: OpenAI): FormatClient {
  return {
    async ask(model, a) {
      const body: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
        model,
        input: a.image
          ? [
              {
                role: 'user',
                content: [
                  { type: 'input_text', text: IMAGE_PROMPT },
                  { type: 'input_image', image_url: PNG_URL, detail: 'auto' },
                ],
              },
            ]
          : PROMPT,
      };
      if (a.tools)
        body.tools = [
          {
            type: 'function',
            name: WEATHER.name,
            description: WEATHER.description,
            parameters: WEATHER.schema,
            strict: false,
          },
        ];
      if (a.thinking) body.reasoning = { effort: 'high', summary: 'auto' };
      let final: OpenAI.Responses.Response | undefined;
      if (a.stream) {
        const stream = await client.responses.create({ ...body, stream: true });
        for await (const ev of stream) if (ev.type === 'response.completed') final = ev.response;
      } else final = await client.responses.create(body);
      if (!final) throw new Error('the stream ended without response.completed');
      const out: Parsed = { text: '', thinking: '', calls: [] };
      for (const item of final.output) {
        if (item.type === 'message')
          for (const c of item.content) if (c.type === 'output_text') out.text += c.text;
        if (item.type === 'reasoning') out.thinking += item.summary.map((s) => s.text).join('\n\n');
        if (item.type === 'function_call')
          out.calls.push({ name: item.name, args: parseArgs(item.arguments) });
      }
      return out;
    },
  };
}

function anthropicClient(client: Anthropic): FormatClient {
  return {
    async ask(model, a) {
      const body: Anthropic.MessageCreateParamsNonStreaming = {
        model,
        max_tokens: a.thinking ? 4096 : 1024,
        messages: [
          {
            role: 'user',
            content: a.image
              ? [
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                  { type: 'text', text: IMAGE_PROMPT },
                ]
              : PROMPT,
          },
        ],
      };
      if (a.tools)
        body.tools = [
          {
            name: WEATHER.name,
            description: WEATHER.description,
            input_schema: WEATHER.schema as Anthropic.Tool.InputSchema,
          },
        ];
      if (a.thinking) body.thinking = { type: 'enabled', budget_tokens: 2048 };
      const msg = a.stream
        ? await client.messages.stream(body).finalMessage()
        : await client.messages.create(body);
      const out: Parsed = { text: '', thinking: '', calls: [] };
      for (const b of msg.content) {
        if (b.type === 'text') out.text += b.text;
        if (b.type === 'thinking') out.thinking += b.thinking;
        if (b.type === 'tool_use') out.calls.push({ name: b.name, args: b.input });
      }
      return out;
    },
  };
}

function geminiClient(ai: GoogleGenAI): FormatClient {
  return {
    async ask(model, a) {
      const contents = [
        {
          role: 'user',
          parts: a.image
            ? [{ inlineData: { mimeType: 'image/png', data: PNG } }, { text: IMAGE_PROMPT }]
            : [{ text: PROMPT }],
        },
      ];
      const config: Record<string, unknown> = {};
      if (a.tools)
        config.tools = [
          {
            functionDeclarations: [
              { name: WEATHER.name, description: WEATHER.description, parametersJsonSchema: WEATHER.schema },
            ],
          },
        ];
      if (a.thinking) config.thinkingConfig = { includeThoughts: true, thinkingBudget: 2048 };
      const out: Parsed = { text: '', thinking: '', calls: [] };
      const take = (r: { candidates?: Array<{ content?: { parts?: any[] } }> }) => {
        for (const p of r.candidates?.[0]?.content?.parts ?? []) {
          if (typeof p.text === 'string') {
            if (p.thought) out.thinking += p.text;
            else out.text += p.text;
          }
          if (p.functionCall) out.calls.push({ name: p.functionCall.name, args: p.functionCall.args ?? {} });
        }
      };
      if (a.stream)
        for await (const chunk of await ai.models.generateContentStream({ model, contents, config }))
          take(chunk);
      else take(await ai.models.generateContent({ model, contents, config }));
      return out;
    },
  };
}
