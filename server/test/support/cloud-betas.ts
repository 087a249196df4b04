import type Anthropic from '@anthropic-ai/sdk';
import type { AppContext } from '../../src/context.ts';

/**
 * Anthropic beta flags that Bedrock and Vertex AI refuse with `400 invalid beta flag`: the ones Claude Code
 * sends that gateways reported failing there (client-compat §1.2: LiteLLM issues 20021, 19877, 19373).
 */
export const REFUSED_BETAS = new Set([
  'claude-code-20250219',
  'mcp-servers-2025-12-04',
  'advanced-tool-use-2025-11-20',
  'structured-outputs-2025-11-13',
]);

/** A plain question the way Claude Code asks it: its beta flags plus `extraBeta`, structured output wanted. */
export function claudeCodeAsk(
  client: Anthropic,
  model: string,
  extraBeta: string,
): Promise<Anthropic.Message> {
  return client.messages.create(
    {
      model,
      max_tokens: 128,
      messages: [{ role: 'user', content: 'Hello, how are you?' }],
      output_format: { type: 'json_schema', schema: { type: 'object' } },
    } as Anthropic.MessageCreateParamsNonStreaming,
    {
      headers: {
        'anthropic-beta': `claude-code-20250219,interleaved-thinking-2025-05-14,mcp-servers-2025-12-04,advanced-tool-use-2025-11-20,structured-outputs-2025-11-13,${extraBeta}`,
      },
    },
  );
}

/** Runs `call` while the option `claude.model_headers_settings` gives `model` the beta flag `beta`. */
export async function withModelBeta<T>(
  ctx: AppContext,
  model: string,
  beta: string,
  call: () => Promise<T>,
): Promise<T> {
  await ctx.options.set(
    'claude.model_headers_settings',
    JSON.stringify({ [model]: { 'anthropic-beta': beta } }),
  );
  try {
    return await call();
  } finally {
    await ctx.options.set('claude.model_headers_settings', '{}');
  }
}
