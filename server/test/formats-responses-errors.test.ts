import { describe, expect, it } from 'vitest';
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { fixtureText } from './support/fixtures.ts';
import { DIR } from './support/responses-codec.ts';

describe('responses codec: errors', () => {
  it('decodes the recorded OpenAI error bodies', () => {
    expect(
      responsesCodec.decodeError(429, fixtureText(`${DIR}/error-insufficient-quota.json`)),
    ).toMatchObject({
      status: 429,
      kind: 'quota',
      code: 'insufficient_quota',
    });
    expect(responsesCodec.decodeError(400, fixtureText(`${DIR}/error-unsupported-temperature.json`))).toEqual(
      {
        status: 400,
        kind: 'invalid_request',
        message: "Unsupported parameter: 'temperature' is not supported with this model.",
        code: null,
        param: 'temperature',
      },
    );
  });

  it.each([
    ['invalid_request', 400, 'invalid_request_error'],
    ['authentication', 401, 'authentication_error'],
    ['rate_limit', 429, 'rate_limit_error'],
    ['quota', 429, 'insufficient_quota'],
    ['server', 500, 'server_error'],
    ['overloaded', 503, 'server_error'],
  ] as const)('kind %s -> %i %s, and back', (kind, status, type) => {
    const out = responsesCodec.encodeError({ status: 0, kind, message: 'm' }, 'req-1');
    expect(out.status).toBe(status);
    expect((out.body as any).error).toMatchObject({ message: 'm (request id: req-1)', type });
    expect(responsesCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(kind);
  });
});
