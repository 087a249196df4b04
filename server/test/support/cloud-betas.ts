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
