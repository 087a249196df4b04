import { describe, expect, it } from 'vitest';
import { geminiCodec } from '../src/relay/formats/gemini/index.ts';
import { toGeminiSchema } from '../src/relay/formats/gemini/schema.ts';
import { fixtureText } from './support/fixtures.ts';
import { DIR } from './support/gemini-codec.ts';

describe('gemini codec: schema cleaning', () => {
  it('inlines $refs (recursive ones become objects), merges allOf, turns type lists and oneOf into anyOf', () => {
    expect(
      toGeminiSchema({
        type: 'object',
        $defs: {
          Point: { type: 'object', properties: { x: { type: 'number' } } },
          Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } },
        },
        properties: {
          p: { $ref: '#/$defs/Point', description: 'a point' },
          n: { $ref: '#/$defs/Node' },
          both: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } } },
              { properties: { b: { type: 'string' } }, required: ['b'] },
            ],
          },
          multi: { type: ['string', 'number'] },
          one: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
          maybe: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
          nums: { enum: [1, 2] },
          nullableEnum: { type: ['string', 'null'], enum: ['a', null] },
          tuple: { type: 'array', prefixItems: [{ type: 'string' }] },
          bare: { type: 'array' },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        p: { type: 'object', description: 'a point', properties: { x: { type: 'number' } } },
        n: { type: 'object', properties: { next: { type: 'object' } } },
        both: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'string' } },
          required: ['b'],
        },
        multi: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        one: { anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
        maybe: { type: 'string', format: 'date-time', nullable: true },
        nums: {},
        nullableEnum: { type: 'string', enum: ['a'], nullable: true },
        tuple: { type: 'array', items: { type: 'string' } },
        bare: { type: 'array', items: { type: 'string' } },
      },
    });
  });

  it('never throws on odd schemas', () => {
    for (const s of [
      null,
      1,
      'x',
      [],
      { type: 5 },
      { properties: [] },
      { items: 'x' },
      { $ref: 5 },
      { anyOf: 'x' },
    ])
      expect(() => toGeminiSchema(s)).not.toThrow();
  });
});

describe('gemini codec: errors', () => {
  it('decodes the recorded Google error bodies', () => {
    expect(geminiCodec.decodeError(400, fixtureText(`${DIR}error-400-invalid-argument.json`))).toEqual({
      status: 400,
      kind: 'invalid_request',
      message: 'Penalty is not enabled for models/gemini-2.5-pro',
      code: 'INVALID_ARGUMENT',
      param: null,
    });
    expect(geminiCodec.decodeError(429, fixtureText(`${DIR}error-429-resource-exhausted.json`))).toEqual({
      status: 429,
      kind: 'rate_limit',
      message: 'You exceeded your current quota, please check your plan.',
      code: 'RESOURCE_EXHAUSTED',
      param: null,
    });
  });

  it.each([
    [
      400,
      '{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}',
      'authentication',
    ],
    [403, '{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}', 'permission'],
    [404, '{"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}}', 'not_found'],
    [503, '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}', 'overloaded'],
    [504, '{"error":{"code":504,"message":"Deadline","status":"DEADLINE_EXCEEDED"}}', 'timeout'],
    [500, '{"error":{"code":500,"message":"Internal","status":"INTERNAL"}}', 'server'],
    [400, '[{"error":{"code":400,"message":"bad arg","status":"INVALID_ARGUMENT"}}]', 'invalid_request'],
    [502, '<html>Bad Gateway</html>', 'server'],
    [429, 'Too many requests', 'rate_limit'],
  ])('status %i %s -> %s', (status, raw, kind) => {
    const e = geminiCodec.decodeError(status, raw);
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toContain('<html>');
  });

  it("an out-of-range status falls back to the kind's own", () => {
    expect(geminiCodec.encodeError({ status: 200, kind: 'request_too_large', message: 'big' }, 'r')).toEqual({
      status: 413,
      body: { error: { code: 413, message: 'big (request id: r)', status: 'INVALID_ARGUMENT' } },
    });
  });
});
