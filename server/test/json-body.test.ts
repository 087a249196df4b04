import { describe, expect, it } from 'vitest';
import { parseJsonBody, rawJsonOf } from '../src/relay/http/json-body.ts';

describe('parseJsonBody and rawJsonOf', () => {
  const text = '{ "model": "m", "messages": [ {"role":"user","content":"a \\"b\\"\\n"} ] }';

  it("remembers the client's text for the parsed object only, not for any copy of it", () => {
    const body = parseJsonBody(text) as Record<string, unknown>;
    expect(rawJsonOf(body)).toBe(text);
    expect(rawJsonOf({ ...body })).toBeUndefined();
    expect(rawJsonOf(Object.assign({}, body))).toBeUndefined();
    expect(rawJsonOf(structuredClone(body))).toBeUndefined();
    expect(rawJsonOf(body.messages as object)).toBeUndefined();
    expect(rawJsonOf({})).toBeUndefined();
  });

  it('remembers the bytes instead of the text when given them', () => {
    const bytes = Buffer.from(text);
    const body = parseJsonBody(text, bytes) as Record<string, unknown>;
    expect(rawJsonOf(body)).toBe(bytes);
    expect(rawJsonOf({ ...body })).toBeUndefined();
  });

  it('leaves the remembered text out of everything that reads the body', () => {
    const body = parseJsonBody(text) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['model', 'messages']);
    expect(JSON.stringify(body)).toBe(JSON.stringify(JSON.parse(text)));
    expect(body).toEqual(JSON.parse(text));
    const keys: string[] = [];
    for (const k in body) keys.push(k);
    expect(keys).toEqual(['model', 'messages']);
  });

  it('remembers the text of a top-level array too', () => {
    const list = parseJsonBody('[{"a":1}]') as object;
    expect(rawJsonOf(list)).toBe('[{"a":1}]');
    expect(rawJsonOf([...(list as unknown[])])).toBeUndefined();
  });

  it('refuses empty, malformed and too deep bodies with a 400', () => {
    for (const bad of ['', '{', '{"a":}', `${'['.repeat(65)}${']'.repeat(65)}`]) {
      expect(() => parseJsonBody(bad)).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect(parseJsonBody(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeInstanceOf(Array);
  });

  it('refuses a __proto__ key or a constructor.prototype at any depth, escaped or not, as Fastify does', () => {
    for (const bad of [
      '{"__proto__":{"x":1}}',
      '{"messages":[{"role":"user","content":"hi"},{"__proto__":null}]}',
      '{"a":{"b":[[{"\\u005f_proto__":1}]]}}',
      '{"tools":[{"constructor":{"prototype":{"polluted":true}}}]}',
    ]) {
      expect(() => parseJsonBody(bad), bad).toThrow(expect.objectContaining({ status: 400 }));
    }
    expect({} as Record<string, unknown>).not.toHaveProperty('polluted');
    // The words themselves are fine: in values, and `constructor` without a prototype.
    const fine =
      '{"content":"__proto__ and constructor.prototype","constructor":{"name":"x"},"list":["__proto__"]}';
    expect(parseJsonBody(fine)).toEqual(JSON.parse(fine));
  });
});
