import type { HubMessage, HubRequest, HubResponse, HubTool } from '../../../relay/formats/hub.ts';
import type { Turn } from './client-call.ts';

/** The scripts, in the matrix's row order. */
export const SCRIPTS = ['plain', 'stream', 'tools', 'thinking', 'image'] as const;
export type ScriptId = (typeof SCRIPTS)[number];

export type Verdict = 'pass' | 'fail' | 'skip';
export interface CellResult {
  verdict: Verdict;
  /** Why it failed or was skipped; empty on a pass. */
  reason: string;
  /** The kind of failure or skip, for the console's words (the reason keeps the details). */
  code?: string;
}

/** Sends one request of a script in the cell's client format; resolves with what came back. */
export type Send = (req: HubRequest) => Promise<Turn>;

/** One request a script sends, with its largest answer: what the cost estimate prices. */
export interface PlannedRequest {
  /** The prompt's text (plus a tool result or image where the script sends one). */
  prompt: string;
  /** Images in the prompt. */
  images: number;
  /** Prompt tokens carried from an earlier answer of the script (at most that answer's max tokens). */
  carried: number;
  maxTokens: number;
}

const ASK = 'What is the weather in Paris? Use the tool.';
const TOOL: HubTool = {
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};
const TOOL_RESULT = '18C, clear';
/** A 1x1 PNG. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const ANSWER_TOKENS = 64;
const TOOL_TOKENS = 256;
const THINKING_TOKENS = 2048;
const THINKING_BUDGET = 1024;

const request = (model: string, messages: HubMessage[], extra: Partial<HubRequest> = {}): HubRequest => ({
  model,
  stream: false,
  system: [],
  messages,
  tools: [],
  maxTokens: ANSWER_TOKENS,
  ...extra,
});
const userText = (text: string): HubMessage => ({ role: 'user', parts: [{ type: 'text', text }] });

const pass = (): CellResult => ({ verdict: 'pass', reason: '' });
const fail = (reason: string, code: string): CellResult => ({ verdict: 'fail', reason, code });
const textOf = (a: HubResponse) =>
  a.parts.map((p) => (p.type === 'text' ? p.text : p.type === 'refusal' ? p.text : '')).join('');

/** A turn that answered: its answer, else the failure to report (prefixed with which turn it was). */
function answered(turn: Turn, label: string): HubResponse | CellResult {
  if (!turn.ok) return fail(`${label}: ${turn.reason}`, turn.code);
  return turn.answer;
}
const isCell = (x: HubResponse | CellResult): x is CellResult => 'verdict' in x;

function withText(a: HubResponse, label: string): CellResult {
  return textOf(a).trim() ? pass() : fail(`${label}: the answer has no text`, 'no_text');
}

/** A two-turn tool loop: the first answer must call the tool with JSON arguments, the second must be taken. */
async function toolLoop(
  send: Send,
  model: string,
  extra: Partial<HubRequest>,
  thinking: boolean,
): Promise<CellResult> {
  const history: HubMessage[] = [userText(ASK)];
  const first = answered(await send(request(model, history, { tools: [TOOL], ...extra })), 'first turn');
  if (isCell(first)) return first;
  const call = first.parts.find((p) => p.type === 'tool_call');
  if (!call)
    return fail('first turn: missing tool call (the answer did not call get_weather)', 'missing_tool_call');
  try {
    JSON.parse(call.args || '{}');
  } catch {
    return fail(
      `first turn: the tool call's arguments are not JSON: ${call.args.slice(0, 80)}`,
      'bad_tool_args',
    );
  }
  const thought = first.parts.some((p) => p.type === 'thinking');
  const signed = first.parts.some((p) => p.type === 'thinking' && (p.signature || p.redacted !== undefined));
  history.push(
    { role: 'assistant', parts: first.parts },
    {
      role: 'user',
      parts: [
        {
          type: 'tool_result',
          callId: call.id,
          name: call.name,
          content: [{ type: 'text', text: TOOL_RESULT }],
        },
      ],
    },
  );
  const second = await send(request(model, history, { tools: [TOOL], ...extra }));
  if (!second.ok) {
    // A refusal of the second turn after signed thinking is the signature failing to come back as issued.
    const lost =
      signed ||
      /signature|encrypted/i.test(second.reason) ||
      (thinking && /reasoning|thinking/i.test(second.reason));
    return fail(
      `${lost ? 'thinking signature lost: ' : ''}second turn (tool result) refused: ${second.reason}`,
      lost ? 'signature_lost' : 'tool_result_refused',
    );
  }
  if (thinking && !thought)
    return {
      verdict: 'skip',
      reason: 'the model returned no thinking to carry across the tool call',
      code: 'no_thinking',
    };
  // The tool result was taken: the model may answer in text or call a tool again.
  const next = second.answer.parts.some((p) => p.type === 'tool_call');
  return next ? pass() : withText(second.answer, 'second turn');
}

/** Runs one script in one client format. */
export async function runScript(id: ScriptId, send: Send, model: string): Promise<CellResult> {
  if (id === 'plain') {
    const a = answered(await send(request(model, [userText('Reply with the word ok.')])), 'answer');
    return isCell(a) ? a : withText(a, 'answer');
  }
  if (id === 'stream') {
    const turn = await send(request(model, [userText('Count from 1 to 5.')], { stream: true }));
    const a = answered(turn, 'stream');
    if (isCell(a)) return a;
    if (turn.ok && !turn.streamEnded)
      return fail('stream malformed: it ended without its final event', 'stream_malformed');
    return withText(a, 'stream');
  }
  if (id === 'tools') return toolLoop(send, model, { maxTokens: TOOL_TOKENS }, false);
  if (id === 'thinking')
    return toolLoop(
      send,
      model,
      {
        stream: true,
        maxTokens: THINKING_TOKENS,
        thinking: { enabled: true, budgetTokens: THINKING_BUDGET, effort: 'low', includeThoughts: true },
      },
      true,
    );
  const image: HubMessage = {
    role: 'user',
    parts: [
      { type: 'text', text: 'What color is this image? One word.' },
      { type: 'image', data: PIXEL_PNG, mediaType: 'image/png' },
    ],
  };
  const a = answered(await send(request(model, [image])), 'answer');
  return isCell(a) ? a : withText(a, 'answer');
}

/** The requests each script sends at most, for the estimate (a tool loop's second turn carries the first). */
export function plannedRequests(id: ScriptId): PlannedRequest[] {
  if (id === 'plain')
    return [{ prompt: 'Reply with the word ok.', images: 0, carried: 0, maxTokens: ANSWER_TOKENS }];
  if (id === 'stream')
    return [{ prompt: 'Count from 1 to 5.', images: 0, carried: 0, maxTokens: ANSWER_TOKENS }];
  if (id === 'image')
    return [
      { prompt: 'What color is this image? One word.', images: 1, carried: 0, maxTokens: ANSWER_TOKENS },
    ];
  const max = id === 'tools' ? TOOL_TOKENS : THINKING_TOKENS;
  const tool = JSON.stringify(TOOL);
  return [
    { prompt: `${ASK}${tool}`, images: 0, carried: 0, maxTokens: max },
    { prompt: `${ASK}${tool}${TOOL_RESULT}`, images: 0, carried: max, maxTokens: max },
  ];
}
