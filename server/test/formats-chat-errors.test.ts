import { describe, expect, it } from 'vitest';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { ctx } from './support/chat-codec.ts';
import { fixtureText } from './support/fixtures.ts';

describe('chat codec: errors', () => {
  it('decodes the recorded OpenAI error bodies', () => {
    expect(chatCodec.decodeError(400, fixtureText('openai/chat/error-unsupported-parameter.json'))).toEqual({
      status: 400,
      kind: 'invalid_request',
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      code: 'unsupported_parameter',
      param: 'max_tokens',
    });
    expect(
      chatCodec.decodeError(429, fixtureText('openai/responses/error-insufficient-quota.json')),
    ).toMatchObject({
      status: 429,
      kind: 'quota',
    });
  });

  it.each([
    [
      401,
      '{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}',
      'authentication',
    ],
    [
      404,
      '{"error":{"message":"no model","type":"invalid_request_error","code":"model_not_found"}}',
      'not_found',
    ],
    [429, '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}', 'rate_limit'],
    [503, '{"error":{"message":"busy","type":"server_error"}}', 'overloaded'],
    [500, '<html>oops</html>', 'server'],
    [502, 'Bad Gateway', 'server'],
    [400, '[{"error":{"code":400,"message":"bad arg","status":"INVALID_ARGUMENT"}}]', 'invalid_request'],
    [422, '{"detail":"field missing"}', 'invalid_request'],
  ])('status %i %s -> %s', (status, raw, kind) => {
    const e = chatCodec.decodeError(status, raw);
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toContain('<html>');
  });

  it.each([
    ['invalid_request', 400, 'invalid_request_error', null],
    ['authentication', 401, 'authentication_error', 'invalid_api_key'],
    ['permission', 403, 'permission_error', null],
    ['not_found', 404, 'not_found_error', null],
    ['rate_limit', 429, 'rate_limit_error', 'rate_limit_exceeded'],
    ['quota', 429, 'insufficient_quota', 'insufficient_quota'],
    ['server', 500, 'server_error', null],
    ['overloaded', 503, 'server_error', 'overloaded'],
  ] as const)('kind %s -> %i %s, and back', (kind, status, type, code) => {
    const out = chatCodec.encodeError({ status: 0, kind, message: 'm' }, 'req-1');
    expect(out).toEqual({
      status,
      body: { error: { message: 'm (request id: req-1)', type, param: null, code } },
    });
    expect(chatCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(kind);
  });

  it('an error object in a 200 answer is thrown, not read as an empty answer', () => {
    expect(() => chatCodec.decodeResponse({ error: { message: 'nope', type: 'server_error' } }, ctx)).toThrow(
      /nope/,
    );
  });
});
