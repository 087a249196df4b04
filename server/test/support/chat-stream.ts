import type OpenAI from 'openai';

/** A streamed chat completion read to its end or its error: the text received, the error, the request id. */
export async function readChatStream(client: OpenAI, model: string) {
  const { data: stream, response } = await client.chat.completions
    .create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  let text = '';
  const err: unknown = await (async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  })().catch((e) => e);
  return { text, err, requestId: response.headers.get('x-oneapi-request-id') as string };
}
