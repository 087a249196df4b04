const DELTA_FIELDS = ['role', 'content', 'reasoning_content', 'reasoning', 'tool_calls', 'refusal'] as const;

/**
 * The channel setting `force_format`: each stream chunk re-serialised in OpenAI's chunk shape, for upstreams
 * whose chunks carry extra fields or miss required ones that strict clients reject. Known fields only;
 * `object`, `created`, `logprobs` and `finish_reason` always present.
 */
export function forceFormat(chunk: any): any[] {
  const choices: any[] = Array.isArray(chunk?.choices) ? chunk.choices : [];
  const out: Record<string, unknown> = {
    id: typeof chunk?.id === 'string' ? chunk.id : '',
    object: 'chat.completion.chunk',
    created: Number.isInteger(chunk?.created) ? chunk.created : Math.floor(Date.now() / 1000),
    model: typeof chunk?.model === 'string' ? chunk.model : '',
    system_fingerprint: chunk?.system_fingerprint ?? null,
    choices: choices.map((c, i) => {
      const delta: Record<string, unknown> = {};
      for (const f of DELTA_FIELDS)
        if (c?.delta?.[f] !== undefined && c.delta[f] !== null) delta[f] = c.delta[f];
      return {
        index: Number.isInteger(c?.index) ? c.index : i,
        delta,
        logprobs: c?.logprobs ?? null,
        finish_reason: c?.finish_reason ?? null,
      };
    }),
  };
  if (chunk?.usage) out.usage = chunk.usage;
  return [out];
}
