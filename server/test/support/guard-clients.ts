import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { ClientFormat } from './format-clients.ts';

/** What a client got: the answer text (what arrived before any error) and the error its SDK raised. */
export interface Said {
  text: string;
  error?: { status?: number; message: string };
}

const errorOf = (e: any): Said['error'] => ({
  status: typeof e?.status === 'number' ? e.status : typeof e?.code === 'number' ? e.code : undefined,
  message: String(e?.message ?? e),
});

/** Sends one user prompt through a format's official SDK, streamed or not, and reads the answer text. */
export async function say(
  format: ClientFormat,
  baseUrl: string,
  apiKey: string,
  model: string,
  prompt: string,
  stream: boolean,
  /** Told each time streamed text arrives. */
  onText?: () => void,
): Promise<Said> {
  const got = { text: '' };
  const out: Said = {
    get text() {
      return got.text;
    },
    set text(t: string) {
      got.text = t;
      if (stream && t) onText?.();
    },
  };
  try {
    if (format === 'openai') {
      const client = new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: prompt }];
      if (!stream)
        out.text =
          (await client.chat.completions.create({ model, messages })).choices[0].message.content ?? '';
      else
        for await (const c of await client.chat.completions.create({ model, messages, stream: true }))
          out.text += c.choices[0]?.delta?.content ?? '';
    } else if (format === 'responses') {
      const client = new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
      if (!stream) out.text = (await client.responses.create({ model, input: prompt })).output_text;
      else
        for await (const ev of await client.responses.create({ model, input: prompt, stream: true })) {
          if (ev.type === 'response.output_text.delta') out.text += ev.delta;
          if (ev.type === 'error') throw Object.assign(new Error(ev.message), { code: ev.code });
        }
    } else if (format === 'anthropic') {
      const client = new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 0 });
      const body = { model, max_tokens: 1024, messages: [{ role: 'user' as const, content: prompt }] };
      if (!stream) {
        const msg = await client.messages.create(body);
        for (const b of msg.content) if (b.type === 'text') out.text += b.text;
      } else
        for await (const ev of client.messages.stream(body))
          if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') out.text += ev.delta.text;
    } else {
      const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl } });
      const contents = [{ role: 'user', parts: [{ text: prompt }] }];
      if (!stream) out.text = (await ai.models.generateContent({ model, contents })).text ?? '';
      else
        for await (const c of await ai.models.generateContentStream({ model, contents }))
          out.text += c.text ?? '';
    }
  } catch (e) {
    out.error = errorOf(e);
  }
  return out;
}
