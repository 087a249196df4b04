import type { CodecContext, HubRequest } from '../../formats/hub.ts';
import { filesOf, queryOf } from './query.ts';

/**
 * A hub request as Dify's `POST /v1/chat-messages` body: the conversation folded into one query, always
 * streamed (Dify's agent apps answer only that way; a non-stream client gets the stream collected), a new
 * conversation each time, no title generation (it would spend the app's tokens). The app picks the model and
 * its parameters, so the client's sampling settings and tools have nowhere to go.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Record<string, unknown> {
  const files = filesOf(req);
  return {
    inputs: {},
    query: queryOf(req),
    response_mode: 'streaming',
    // Filled from the channel's setting `user` (or a default) by the adapter when the client named none.
    user: req.user ?? '',
    conversation_id: '',
    auto_generate_name: false,
    ...(files.length ? { files } : {}),
  };
}
