import { channelTypeInfo } from '@modelgate/shared';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { errorAnswer, jsonAnswer } from '../error-answer.ts';
import { collectStream } from '../sse-collect.ts';
import type { ProviderAdapter } from '../types.ts';
import { cozeCodec } from './codec.ts';
import { decodeError } from './errors.ts';

const baseOf = (ch: ChannelEntry) =>
  ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://api.coze.cn';

/**
 * Coze (type 49): a bot's chat (`/v3/chat`) with a personal access token (Bearer); the (mapped) model name is
 * the bot id. Always called streaming: Coze's non-stream chat must be polled to its end, so a non-stream
 * client gets the stream collected into the `{chat, messages}` a poll would give. Coze reports most failures
 * as JSON with a non-zero code (HTTP 200 too), turned into errors with the status the code stands for.
 * Setting: `user` (the user_id Coze records when the client names none).
 */
export const cozeAdapter: ProviderAdapter = {
  name: 'coze',
  formatFor: () => 'coze',
  modes: new Set(),
  checkKey(key) {
    if (!/^(pat|sat|czs)_[A-Za-z0-9._-]+$/.test(key))
      throw new Error(
        'Coze keys are a personal access token (pat_...) or a service/OAuth access token (sat_..., czs_...)',
      );
  },
  url: (ch) => `${baseOf(ch)}/v3/chat`,
  headers: (ch) => ({ authorization: `Bearer ${ch.key}` }),
  streamUsage: () => true,
  prepareBody(body, ch) {
    if (body.user_id) return false;
    const user = ch.setting.user;
    body.user_id = typeof user === 'string' && user.trim() ? user.trim() : 'modelgate';
    return true;
  },
  async send(req, _ch, call, http) {
    const res = await http({
      url: req.url,
      headers: { ...req.headers, accept: 'text/event-stream' },
      body: req.body,
      stream: true,
    });
    const json = String(res.headers['content-type'] ?? '').includes('application/json');
    if (res.statusCode < 200 || res.statusCode >= 300 || json)
      return errorAnswer(decodeError(res.statusCode, await res.body.text().catch(() => '')));
    if (call.stream) return res;
    const got = await collectStream(
      res.body,
      cozeCodec.streamDecoder({ model: call.model, stream: true, requestId: '' }),
    );
    if (got.error) return errorAnswer(got.error);
    const u = got.usage;
    return jsonAnswer(200, {
      chat: {
        id: got.id,
        status: 'completed',
        ...(u
          ? { usage: { token_count: u.input + u.output, input_count: u.input, output_count: u.output } }
          : {}),
      },
      messages: [
        {
          role: 'assistant',
          type: 'answer',
          content: got.text,
          content_type: 'text',
          reasoning_content: got.thinking,
        },
      ],
    });
  },
};
