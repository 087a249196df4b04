/** One same-format OpenAI stream through the relay as `format-answer.ts` sets it up (client without usage). */
import { chatClosing, chatEventRelay } from '../../server/src/relay/answer/stream/chat-relay.ts';
import { relayFormatStream } from '../../server/src/relay/answer/stream/format-stream.ts';
import { upstreamCodecFor } from '../../server/src/relay/formats/codecs.ts';
import { runStreams, sinkResponse, upstreamBody } from './events.ts';

const codec = upstreamCodecFor('openai');
const ctx = { model: 'gpt-4o-mini', stream: true, requestId: 'bench' };

await runStreams(async () => {
  const sink = sinkResponse();
  await relayFormatStream(
    {
      res: { status: 200, headers: {}, body: upstreamBody() } as any,
      raw: sink.res,
      headers: {},
      pingSeconds: 0,
      abort: () => {},
      onStart: () => {},
      decoder: codec.streamDecoder(ctx),
      newDecoder: () => codec.streamDecoder(ctx),
      relayEvent: chatEventRelay(true, undefined),
      closing: async () => chatClosing(null),
      errorFrame: () => '',
    },
    performance.now(),
  );
  return sink.bytes();
});
