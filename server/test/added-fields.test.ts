import { describe, expect, it } from 'vitest';
import { withAddedFields } from '../src/relay/call/added-fields.ts';

/**
 * What the upstream parses must equal the edited body, whatever the client's text looked like; the client's
 * bytes give the same bytes as its text.
 */
function check(raw: string, edit: (json: Record<string, unknown>) => void): string | undefined {
  const sent = JSON.parse(raw);
  const edited = { ...sent };
  edit(edited);
  const out = withAddedFields(raw, sent, edited);
  const fromBytes = withAddedFields(Buffer.from(raw), sent, edited);
  expect(fromBytes === undefined ? undefined : Buffer.isBuffer(fromBytes)).toBe(
    out === undefined ? undefined : true,
  );
  expect(fromBytes?.toString()).toBe(out?.toString());
  if (out !== undefined) expect(JSON.parse(out.toString())).toEqual(JSON.parse(JSON.stringify(edited)));
  return out?.toString();
}

describe('withAddedFields', () => {
  it("keeps the client's text, escapes and spacing included, and writes the added fields after it", () => {
    const raw =
      '{ "model" : "gpt-4o",\n "messages":[{"role":"user","content":"a \\"quoted\\"\\nline \\u00e9"}] }\n';
    const out = check(raw, (j) => {
      j.stream_options = { include_usage: true };
    });
    expect(out).toBe(
      '{ "model" : "gpt-4o",\n "messages":[{"role":"user","content":"a \\"quoted\\"\\nline \\u00e9"}] ,"stream_options":{"include_usage":true}}\n',
    );
  });

  it('adds to an empty object without a leading comma', () => {
    expect(
      check('{}', (j) => {
        j.safetySettings = [{ category: 'x', threshold: 'OFF' }];
      }),
    ).toBe('{"safetySettings":[{"category":"x","threshold":"OFF"}]}');
  });

  it('returns the text unchanged when nothing was added and nothing changed', () => {
    expect(
      check('{"a":1,"b":{"c":2}}', (j) => {
        j.a = 1;
      }),
    ).toBe('{"a":1,"b":{"c":2}}');
  });

  it('skips added fields whose value is undefined, as JSON.stringify does', () => {
    expect(
      check('{"a":1}', (j) => {
        j.b = undefined;
      }),
    ).toBe('{"a":1}');
  });

  it("gives up when one of the client's fields was changed or removed", () => {
    expect(
      check('{"model":"a","x":1}', (j) => {
        j.model = 'b';
      }),
    ).toBeUndefined();
    expect(
      check('{"model":"a","x":{"y":1}}', (j) => {
        j.x = { y: 1 };
      }),
    ).toBeUndefined();
    expect(
      check('{"model":"a","top_p":1}', (j) => {
        delete j.top_p;
      }),
    ).toBeUndefined();
  });

  it('keeps a duplicate key of the client where its parser put it: the added field is a new one', () => {
    const out = check('{"a":1,"a":2}', (j) => {
      j.b = 3;
    });
    expect(out).toBe('{"a":1,"a":2,"b":3}');
    expect(JSON.parse(out as string)).toEqual({ a: 2, b: 3 });
  });
});
