import { describe, expect, it } from 'vitest';
import { anthropicCodec } from '../src/relay/formats/anthropic/index.ts';
import { fixtureText } from './support/fixtures.ts';

describe('anthropic codec: errors', () => {
  it('decodes the recorded Anthropic error body', () => {
    expect(
      anthropicCodec.decodeError(400, fixtureText('anthropic/messages/error-invalid-request.json')),
    ).toEqual({
      status: 400,
      kind: 'invalid_request',
      message:
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: srvtoolu_issue_17366_invalid. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      code: 'invalid_request_error',
      param: null,
    });
  });

  it.each([
    [
      401,
      '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      'authentication',
    ],
    [402, '{"type":"error","error":{"type":"billing_error","message":"credit balance too low"}}', 'quota'],
    [429, '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', 'rate_limit'],
    [529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'overloaded'],
    [500, '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}', 'server'],
    [504, '{"type":"error","error":{"type":"timeout_error","message":"timed out"}}', 'timeout'],
    [413, '{"type":"error","error":{"type":"request_too_large","message":"too big"}}', 'request_too_large'],
    [503, '{"type":"error","error":{"type":"something_new","message":"busy"}}', 'overloaded'],
    [
      401,
      '{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}',
      'authentication',
    ],
    [502, '<html>Bad Gateway</html>', 'server'],
  ])('status %i %s -> %s', (status, raw, kind) => {
    const e = anthropicCodec.decodeError(status, raw);
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toContain('<html>');
  });

  it.each([
    ['invalid_request', 400, 'invalid_request_error'],
    ['authentication', 401, 'authentication_error'],
    ['quota', 402, 'billing_error'],
    ['permission', 403, 'permission_error'],
    ['not_found', 404, 'not_found_error'],
    ['request_too_large', 413, 'request_too_large'],
    ['rate_limit', 429, 'rate_limit_error'],
    ['server', 500, 'api_error'],
    ['timeout', 504, 'timeout_error'],
    ['overloaded', 529, 'overloaded_error'],
  ] as const)('kind %s -> %i %s, and back', (kind, status, type) => {
    const out = anthropicCodec.encodeError({ status: 0, kind, message: 'm' }, 'req-1');
    expect(out).toEqual({
      status,
      body: { type: 'error', error: { type, message: 'm (request id: req-1)' }, request_id: 'req-1' },
    });
    expect(anthropicCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(kind);
  });

  it("an error's own status is kept", () => {
    expect(
      anthropicCodec.encodeError({ status: 422, kind: 'invalid_request', message: 'm' }, 'r').status,
    ).toBe(422);
  });
});
