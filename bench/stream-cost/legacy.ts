/**
 * The same stream through the OpenAI-only relay the one path replaced (`server/src/relay/stream/relay-stream.ts`,
 * removed in the commit "One request path for the relay"). Bundled only from a checkout of a commit before it:
 * `run.ts --legacy <commit>`.
 */
// @ts-nocheck: the module exists only in those commits.
import { finishStream, relayStream } from '../../server/src/relay/stream/relay-stream.ts';
import { runStreams, sinkResponse, upstreamBody } from './events.ts';

await runStreams(async () => {
  const sink = sinkResponse();
  const out = await relayStream(
    {
      res: { status: 200, headers: {}, body: upstreamBody() },
      raw: sink.res,
      headers: {},
      pingSeconds: 0,
      abort: () => {},
      onStart: () => {},
      wantsUsage: false,
    },
    performance.now(),
  );
  finishStream(sink.res, out, null);
  return sink.bytes();
});
