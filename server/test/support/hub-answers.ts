import type { HubPart } from '../../src/relay/formats/hub.ts';

/**
 * The answer the client-format tests send through each official SDK: a Claude answer with signed thinking and
 * two tool calls, the second carrying a Gemini signature. Fresh objects on every call.
 */
export const claudeAnswerHead = () => ({ id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 });

export const signedThinking = (): HubPart => ({
  type: 'thinking',
  text: 'Let me look.',
  signature: 'anthropic-sig',
  signatureFormat: 'anthropic',
});

export const twoCalls = (): HubPart[] => [
  { type: 'tool_call', id: 'toolu_1', name: 'weather', args: '{"city":"Paris"}' },
  { type: 'tool_call', id: 'fc_2', name: 'time', args: '', signature: 'gem-sig', signatureFormat: 'gemini' },
];
