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

  it('refuses empty, malformed, too deep and prototype-polluting bodies with a 400', () => {
    for (const bad of ['', '{', '{"a":}', `${'['.repeat(65)}${']'.repeat(65)}`, '{"__proto__":{"x":1}}']) {
      expect(() => parseJsonBody(bad)).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
});
