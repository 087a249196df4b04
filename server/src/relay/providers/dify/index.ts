import { isObj } from '../../formats/chat/check.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { errorAnswer, jsonAnswer } from '../error-answer.ts';
import { collectStream } from '../sse-collect.ts';
import type { ProviderAdapter } from '../types.ts';
import { difyCodec } from './codec.ts';
import { decodeError } from './errors.ts';

/** Dify's own cloud; a self-hosted Dify is the channel's base URL, with or without its `/v1`. */
const baseOf = (ch: ChannelEntry) => (ch.baseUrl || 'https://api.dify.ai').replace(/\/v1$/, '');

/**
 * Dify (type 37): an app's chat endpoint with its app key (Bearer). The app decides the model, so the
 * channel's model names are labels. Always called streaming; a non-stream client gets the stream collected
 * into Dify's blocking answer. Settings: `inputs` (the app's input variables, an object) and `user` (the end
 * user Dify records when the client names none).
 */
export const difyAdapter: ProviderAdapter = {
  name: 'dify',
  formatFor: () => 'dify',
  modes: new Set(),
  checkKey(key) {
    if (!/^app-[A-Za-z0-9]+$/.test(key))
      throw new Error("Dify keys are an app's API key: app- followed by letters and digits");
  },
  url: (ch) => `${baseOf(ch)}/v1/chat-messages`,
  headers: (ch) => ({ authorization: `Bearer ${ch.key}` }),
  streamUsage: () => true,
  prepareBody(body, ch) {
    if (isObj(ch.setting.inputs)) body.inputs = ch.setting.inputs;
    if (!body.user) {
      const user = ch.setting.user;
      body.user = typeof user === 'string' && user.trim() ? user.trim() : 'modelgate';
    }
    return true;
  },
  async send(req, _ch, call, http) {
    const res = await http({
      url: req.url,
      headers: { ...req.headers, accept: 'text/event-stream' },
      body: req.body,
      stream: true,
    });
    if (res.statusCode < 200 || res.statusCode >= 300)
      return errorAnswer(decodeError(res.statusCode, await res.body.text().catch(() => '')));
    if (call.stream) return res;
    const got = await collectStream(
      res.body,
      difyCodec.streamDecoder({ model: call.model, stream: true, requestId: '' }),
    );
    if (got.error) return errorAnswer(got.error);
    const u = got.usage;
    return jsonAnswer(200, {
      event: 'message',
      message_id: got.id,
      mode: 'chat',
      answer: got.refusal || got.text,
      metadata: u
        ? { usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } }
        : {},
      created_at: Math.floor(Date.now() / 1000),
    });
  },
};
