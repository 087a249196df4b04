import type { UpstreamCall } from '../types.ts';

/** A cloud that hosts Claude behind its own API, with its own list of the beta flags it takes. */
export type ClaudeCloud = 'bedrock' | 'vertex';

// Both clouds answer `400 invalid beta flag` to a flag they do not know, and Claude Code sends many (its own
// `claude-code-20250219`, `mcp-servers-2025-12-04`, ...). So a client's flags pass through these lists, which
// follow the clouds' documentation and what gateways have found they accept; a flag maps to its name there.
const TOOL_SEARCH = 'tool-search-tool-2025-10-19';
const SHARED = [
  'compact-2026-01-12',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'dangerous-tool-use-2026-09-03',
  'interleaved-thinking-2025-05-14',
  'thinking-binding-controls-2026-08-01',
  'thinking-display-updates-2026-08-18',
  TOOL_SEARCH,
];
const CLOUD_BETAS: Record<ClaudeCloud, ReadonlyMap<string, string>> = {
  bedrock: betaMap(
    [
      ...SHARED,
      'computer-use-2024-10-22',
      'dev-full-thinking-2025-05-14',
      'effort-2025-11-24',
      'fine-grained-tool-streaming-2025-05-14',
      'mid-conversation-output-config-2026-07-01',
      'mid-conversation-tool-changes-2026-07-01',
      'output-128k-2025-02-19',
      'token-efficient-tools-2025-02-19',
      'tool-examples-2025-10-29',
    ],
    { 'advanced-tool-use-2025-11-20': TOOL_SEARCH },
  ),
  vertex: betaMap([...SHARED, 'compact-2026-09-04', 'per-turn-control-2026-07-01', 'web-search-2025-03-05'], {
    'advanced-tool-use-2025-11-20': TOOL_SEARCH,
  }),
};

function betaMap(same: string[], renamed: Record<string, string>): ReadonlyMap<string, string> {
  return new Map([...same.map((b) => [b, b] as const), ...Object.entries(renamed)]);
}

/**
 * The `anthropic-beta` flags of a call: the client's header, then the model's configured ones
 * (`claude.model_headers_settings`), without repeats.
 */
export function requestedBetas(call: UpstreamCall): { client: string[]; configured: string[] } {
  const configured: string[] = [];
  for (const [k, v] of Object.entries(modelHeaders(call)))
    if (k.toLowerCase() === 'anthropic-beta') configured.push(...splitList(headerValues(v)));
  return { client: splitList(headerValues(call.clientHeaders['anthropic-beta'])), configured };
}

/**
 * The flags a call sends to a cloud: the client's that the cloud takes, under its names there, then the
 * configured ones as they are (an operator who sets a flag for a model knows the cloud takes it).
 */
export function cloudBetas(cloud: ClaudeCloud, call: UpstreamCall): string[] {
  const { client, configured } = requestedBetas(call);
  const known = CLOUD_BETAS[cloud];
  const out = new Set<string>();
  for (const b of client) {
    const name = known.get(b);
    if (name) out.add(name);
  }
  for (const b of configured) out.add(b);
  return [...out];
}

/** Body fields of Anthropic's own API that the clouds refuse: structured output, for now. */
export function dropAnthropicOnlyFields(body: Record<string, unknown>): void {
  delete body.output_format;
}

/**
 * The headers configured for the call's model (`claude.model_headers_settings`) besides its beta flags, as
 * header values; never the key's headers.
 */
export function modelExtraHeaders(call: UpstreamCall): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(modelHeaders(call))) {
    const key = k.toLowerCase();
    if (key !== 'anthropic-beta' && key !== 'x-api-key' && key !== 'authorization') h[key] = headerValues(v);
  }
  return h;
}

function modelHeaders(call: UpstreamCall): Record<string, unknown> {
  const perModel = call.options.json<Record<string, unknown>>('claude.model_headers_settings')?.[call.model];
  return perModel && typeof perModel === 'object' && !Array.isArray(perModel)
    ? (perModel as Record<string, unknown>)
    : {};
}

export const headerValues = (v: unknown): string =>
  Array.isArray(v) ? v.map(String).join(',') : v === undefined || v === null ? '' : String(v);

function splitList(s: string): string[] {
  const out = new Set<string>();
  for (const x of s.split(',')) {
    const t = x.trim();
    if (t) out.add(t);
  }
  return [...out];
}
