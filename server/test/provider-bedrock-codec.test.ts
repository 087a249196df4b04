import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { anthropicSse } from '../src/relay/providers/bedrock/event-stream.ts';
import { bedrockModelId, crossRegionPrefix } from '../src/relay/providers/bedrock/models.ts';
import { PROFILE_ARN } from './support/mock-bedrock.ts';

/** AWS Bedrock's pure parts: its binary event stream decoded to Anthropic events, model ids and profiles. */
describe('bedrock: event stream decoding and model ids', () => {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const chunk = (event: unknown) =>
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: 'chunk' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') })),
    });
  const collect = async (parts: Buffer[]) => {
    let out = '';
    for await (const b of anthropicSse(
      (async function* () {
        yield* parts;
      })(),
    ))
      out += b.toString();
    return out;
  };

  it('rebuilds messages fed one byte at a time', async () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo\nworld' } },
    ];
    const all = Buffer.concat(events.map(chunk));
    const bytes = [...all].map((b) => Buffer.from([b]));
    expect(await collect(bytes)).toBe(
      events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''),
    );
  });

  it('turns exceptions into Anthropic error events and refuses a cut or corrupt stream', async () => {
    const exception = codec.encode({
      headers: {
        ':exception-type': { type: 'string', value: 'validationException' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'exception' },
      },
      body: fromUtf8(JSON.stringify({ message: 'messages: text content blocks must be non-empty' })),
    });
    expect(await collect([Buffer.from(exception)])).toBe(
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } })}\n\n`,
    );
    const whole = Buffer.from(chunk({ type: 'ping' }));
    await expect(collect([whole.subarray(0, whole.length - 3)])).rejects.toThrow(/ended inside a message/);
    const corrupt = Buffer.from(whole);
    corrupt[corrupt.length - 6] ^= 0xff;
    await expect(collect([corrupt])).rejects.toThrow(/malformed/);
  });

  it('maps Anthropic names to Bedrock ids and prefixes cross-region profiles', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20241022', '')).toBe(
      'anthropic.claude-3-5-sonnet-20241022-v2:0',
    );
    expect(bedrockModelId('claude-3-7-sonnet-20250219', '')).toBe(
      'anthropic.claude-3-7-sonnet-20250219-v1:0',
    );
    expect(bedrockModelId('claude-opus-4-1', '')).toBe('anthropic.claude-opus-4-1-20250805-v1:0');
    expect(bedrockModelId('claude-haiku-4-5-20251001', 'eu')).toBe(
      'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
    );
    expect(bedrockModelId('us.anthropic.claude-sonnet-4-20250514-v1:0', 'eu')).toBe(
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
    );
    expect(bedrockModelId(PROFILE_ARN, 'us')).toBe(PROFILE_ARN);
    expect(crossRegionPrefix(true, 'us-east-1')).toBe('us');
    expect(crossRegionPrefix(true, 'eu-central-1')).toBe('eu');
    expect(crossRegionPrefix(true, 'ap-northeast-1')).toBe('apac');
    expect(crossRegionPrefix(true, 'us-gov-west-1')).toBe('us-gov');
    expect(crossRegionPrefix('global', 'us-east-1')).toBe('global');
    expect(crossRegionPrefix(false, 'us-east-1')).toBe('');
    expect(crossRegionPrefix(undefined, 'us-east-1')).toBe('');
  });
});
