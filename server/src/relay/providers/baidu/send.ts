import { networkError } from '../../call/upstream-client.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { bodyOf, responseOf } from '../response.ts';
import type { HttpSender, ProviderSend, UpstreamResponse } from '../types.ts';
import { errorCodeOf, TOKEN_REJECTED } from './errors.ts';
import { channelKey } from './key.ts';
import { accessToken, dropToken } from './token.ts';

/**
 * One Wenxin call with the access token in the URL. An answer saying the token is invalid or expired (110,
 * 111) drops the cached token; when that token came from the cache it is exchanged once more and the call
 * repeated. A stream that answers with a JSON error instead of frames is handed on as one `data:` frame.
 */
export async function sendWithToken(
  req: ProviderSend,
  ch: ChannelEntry,
  http: HttpSender,
  base: string,
): Promise<UpstreamResponse> {
  const key = channelKey(ch.key);
  for (let attempt = 0; ; attempt++) {
    const { token, fresh } = await accessToken(base, key, req.options, ch.proxy);
    const sep = req.url.includes('?') ? '&' : '?';
    const res = await http({
      url: `${req.url}${sep}access_token=${encodeURIComponent(token)}`,
      headers: req.headers,
      body: req.body,
      stream: req.stream,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) return res;
    const read = await jsonAnswer(res, req.stream);
    if ('res' in read) return read.res;
    const code = errorCodeOf(parseJsonOrNull(read.text));
    if (code !== null && TOKEN_REJECTED.has(code)) {
      dropToken(base, key, token);
      if (!fresh && attempt === 0) continue;
    }
    return responseOf(res.statusCode, [Buffer.from(req.stream ? `data: ${read.text}\n\n` : read.text)]);
  }
}

/**
 * The answer's JSON text, read whole; or, for a stream that is made of SSE frames, the response to relay as it
 * comes (the bytes read to tell the two apart are put back in front).
 */
async function jsonAnswer(
  res: UpstreamResponse,
  stream: boolean,
): Promise<{ text: string } | { res: UpstreamResponse }> {
  try {
    if (!stream) return { text: await res.body.text() };
    const it = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const head: Buffer[] = [];
    for (;;) {
      const next = await it.next();
      if (next.done) break;
      head.push(next.value);
      const start = Buffer.concat(head).toString('utf8').trimStart();
      if (!start) continue;
      if (!start.startsWith('{')) return { res: { ...res, body: bodyOf(rest(head, it)) } };
      break;
    }
    for (;;) {
      const next = await it.next();
      if (next.done) break;
      head.push(next.value);
    }
    return { text: Buffer.concat(head).toString('utf8') };
  } catch (err) {
    throw networkError(err);
  }
}

async function* rest(head: Buffer[], it: AsyncIterator<Buffer>): AsyncIterable<Buffer> {
  yield* head;
  for (;;) {
    const next = await it.next();
    if (next.done) return;
    yield next.value;
  }
}
