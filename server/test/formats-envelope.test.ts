import { describe, expect, it } from 'vitest';
import { sealAnswer } from '../src/relay/formats/envelope/answer.ts';
import { packEnvelopeId, unpackEnvelopeId } from '../src/relay/formats/envelope/call-id.ts';
import { openEnvelopes } from '../src/relay/formats/envelope/request.ts';
import { envelopeKey, isEnvelope, open, seal } from '../src/relay/formats/envelope/seal.ts';
import type { HubPart, HubRequest } from '../src/relay/formats/hub.ts';

/** The reasoning envelope: sealed per upstream format, opened only for it, anything else dropped. */
const key = envelopeKey('test-secret');
const other = envelopeKey('another-secret');
const ANTHROPIC_THINKING: HubPart = {
  type: 'thinking',
  text: 'why',
  signature: 'EqQBsig',
  signatureFormat: 'anthropic',
};

const request = (parts: HubPart[]): HubRequest => ({
  model: 'm',
  stream: false,
  system: [],
  tools: [],
  messages: [
    { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    { role: 'assistant', parts },
  ],
});

describe('reasoning envelope', () => {
  it('opens only with its key and for the format that issued it', () => {
    const env = seal(key, 'anthropic', [{ t: 'why', s: 'EqQBsig' }]);
    expect(isEnvelope(env)).toBe(true);
    expect(isEnvelope('EqQBsig')).toBe(false);
    expect(open(key, 'anthropic', env)).toEqual([{ t: 'why', s: 'EqQBsig' }]);
    expect(open(key, 'responses', env)).toBeNull();
    expect(open(other, 'anthropic', env)).toBeNull();
    const raw = Buffer.from(env, 'base64');
    raw[raw.length - 1] ^= 1;
    expect(open(key, 'anthropic', raw.toString('base64'))).toBeNull();
  });

  it('carries an Anthropic thinking block to a Responses client and back unchanged', () => {
    const [sealed] = sealAnswer([ANTHROPIC_THINKING], 'anthropic', 'responses', key);
    expect(sealed).toMatchObject({ type: 'thinking', text: 'why', signatureFormat: 'responses' });
    const back = openEnvelopes(request([sealed]), 'responses', 'anthropic', key);
    expect(back.messages[1].parts).toEqual([
      { type: 'thinking', text: 'why', signature: 'EqQBsig', signatureFormat: 'anthropic' },
    ]);
  });

  it('drops an envelope sent back to a channel of another format, or one that does not verify', () => {
    const [sealed] = sealAnswer([ANTHROPIC_THINKING], 'anthropic', 'responses', key);
    const call: HubPart = { type: 'tool_call', id: 'c1', name: 'f', args: '{}' };
    expect(openEnvelopes(request([sealed, call]), 'responses', 'gemini', key).messages[1].parts).toEqual([
      call,
    ]);
    expect(openEnvelopes(request([sealed, call]), 'responses', 'anthropic', other).messages[1].parts).toEqual(
      [call],
    );
  });

  it("puts a Gemini client's envelope on the function call that follows the thinking", () => {
    const call: HubPart = { type: 'tool_call', id: 'toolu_1', name: 'f', args: '{}' };
    const parts = sealAnswer(
      [ANTHROPIC_THINKING, { type: 'thinking', text: '', redacted: 'RD' }, call],
      'anthropic',
      'gemini',
      key,
    );
    expect(parts[0]).toEqual({ type: 'thinking', text: 'why' });
    expect(parts[1]).toMatchObject({ type: 'tool_call', id: 'toolu_1', signatureFormat: 'gemini' });
    // Gemini CLI keeps only the call (it drops thought parts from its history).
    const back = openEnvelopes(request([parts[1]]), 'gemini', 'anthropic', key);
    expect(back.messages[1].parts).toEqual([
      ANTHROPIC_THINKING,
      { type: 'thinking', text: '', redacted: 'RD' },
      call,
    ]);
  });

  it("carries a chat client's envelope in the call id, keeping a Gemini signature packed after it", () => {
    const env = seal(key, 'anthropic', [{ t: 'why', s: 'EqQBsig' }]);
    expect(unpackEnvelopeId(packEnvelopeId('call_1', env))).toEqual({ id: 'call_1', envelope: env });
    const packed = packEnvelopeId('call_1__gs_c2ln', env);
    expect(packed).toMatch(/^call_1__ge_[A-Za-z0-9_-]+__gs_c2ln$/);
    expect(unpackEnvelopeId(packed)).toEqual({ id: 'call_1__gs_c2ln', envelope: env });
    const call: HubPart = { type: 'tool_call', id: packEnvelopeId('toolu_1', env), name: 'f', args: '{}' };
    const req = request([call]);
    req.messages.push({ role: 'user', parts: [{ type: 'tool_result', callId: call.id, content: [] }] });
    const back = openEnvelopes(req, 'openai', 'anthropic', key);
    expect(back.messages[1].parts).toEqual([ANTHROPIC_THINKING, { ...call, id: 'toolu_1' }]);
    expect(back.messages[2].parts).toEqual([{ type: 'tool_result', callId: 'toolu_1', content: [] }]);
  });
});
