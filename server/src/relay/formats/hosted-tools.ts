import { badRequest } from '../relay-error.ts';
import type { HubOpaque, UpstreamFormat, WireFormat } from './hub.ts';

/**
 * Tools a provider's own servers run (web search, code execution, file search, tool search ...), declared by
 * a client of one format for a channel of another. A web search becomes the channel's own web search; any
 * other hosted tool has no equivalent, and the call is refused with a 400 naming it, unless the operator lets
 * the gateway drop such tools (`global.drop_unsupported_hosted_tools_enabled`): then it goes without them and
 * the answer's header says which were dropped. Never silently.
 */
export const DROPPED_TOOLS_HEADER = 'x-modelgate-dropped-tools';

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The name a client knows a hosted tool by: Anthropic's name, Responses' type, Gemini's tool key. */
export function hostedToolName(t: HubOpaque): string {
  const v = obj(t.value);
  if (t.format === 'anthropic') return String(v.name ?? v.type);
  if (t.format === 'gemini') return Object.keys(v)[0] ?? 'unknown';
  return String(v.type);
}

/** The domains a web search is limited to, when the client said. */
function webSearchDomains(t: HubOpaque): string[] | undefined {
  const v = obj(t.value);
  if (t.format === 'anthropic' && Array.isArray(v.allowed_domains)) return v.allowed_domains as string[];
  const f = obj(v.filters);
  if (t.format === 'responses' && Array.isArray(f.allowed_domains)) return f.allowed_domains as string[];
  return undefined;
}

function isWebSearch(t: HubOpaque): boolean {
  const v = obj(t.value);
  if (t.format === 'anthropic') return typeof v.type === 'string' && v.type.startsWith('web_search_');
  if (t.format === 'responses') return typeof v.type === 'string' && v.type.startsWith('web_search');
  if (t.format === 'gemini')
    return 'googleSearch' in v || 'google_search' in v || 'googleSearchRetrieval' in v;
  return t.format === 'openai' && v.type === 'web_search_options';
}

/** The upstream format's own web search tool, or undefined where it has none. */
function webSearchFor(upstream: UpstreamFormat, from: HubOpaque): HubOpaque | undefined {
  const domains = webSearchDomains(from);
  if (upstream === 'anthropic')
    return {
      type: 'opaque',
      format: 'anthropic',
      value: {
        type: 'web_search_20250305',
        name: 'web_search',
        ...(domains ? { allowed_domains: domains } : {}),
      },
    };
  if (upstream === 'responses')
    return {
      type: 'opaque',
      format: 'responses',
      value: { type: 'web_search', ...(domains ? { filters: { allowed_domains: domains } } : {}) },
    };
  if (upstream === 'gemini') return { type: 'opaque', format: 'gemini', value: { googleSearch: {} } };
  return undefined;
}

/**
 * The hosted tools to send to an upstream of another format, and the names of those dropped. Throws a 400
 * (in the caller's protocol, as every RelayError) for a tool with no equivalent when dropping is off.
 */
export function hostedToolsFor(
  tools: HubOpaque[] | undefined,
  upstream: UpstreamFormat,
  client: WireFormat,
  dropAllowed: boolean,
): { serverTools?: HubOpaque[]; dropped: string[] } {
  if (!tools?.length) return { serverTools: tools, dropped: [] };
  const out: HubOpaque[] = [];
  const dropped: string[] = [];
  for (const t of tools) {
    const mapped = t.format === upstream ? t : isWebSearch(t) ? webSearchFor(upstream, t) : undefined;
    if (mapped) {
      if (!out.some((o) => JSON.stringify(o.value) === JSON.stringify(mapped.value))) out.push(mapped);
      continue;
    }
    const name = hostedToolName(t);
    if (!dropAllowed)
      throw badRequest(
        `the hosted tool '${name}' is not available for this model: its channel (${upstream} format) has no equivalent of this ${client} tool; remove it from tools`,
        'unsupported_tool',
        'tools',
      );
    dropped.push(name);
  }
  return { serverTools: out.length ? out : undefined, dropped };
}
