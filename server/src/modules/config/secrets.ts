import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { SecretRef } from './document.ts';

/** Turns a key or secret option reference into its value; throws a sentence when it cannot. */
export type SecretResolver = (ref: SecretRef) => string;

/**
 * References resolve from `env` ({env: NAME}) and from the secrets file ({secret: NAME}), a YAML or JSON map of
 * name to value kept out of the configuration's repository. A plain string is the value itself.
 */
export function secretResolver(env: NodeJS.ProcessEnv, secretsFile?: string): SecretResolver {
  let secrets: Record<string, unknown> | undefined;
  const loadSecrets = () => {
    if (secrets) return secrets;
    if (!secretsFile)
      throw new Error('a {secret: ...} reference needs a secrets file (--secrets or CONFIG_SECRETS_FILE)');
    const parsed = parse(readFileSync(secretsFile, 'utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error(`the secrets file ${secretsFile} is not a map of name to value`);
    secrets = parsed as Record<string, unknown>;
    return secrets;
  };
  return (ref) => {
    if (typeof ref === 'string') return ref;
    if ('env' in ref) {
      const value = env[ref.env];
      if (value === undefined) throw new Error(`the environment variable ${ref.env} is not set`);
      return value;
    }
    const value = loadSecrets()[ref.secret];
    if (typeof value !== 'string') throw new Error(`the secrets file has no text value named ${ref.secret}`);
    return value;
  };
}
