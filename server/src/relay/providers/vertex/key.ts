import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';

export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** A Google Cloud service account, as its JSON key file describes it. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  projectId: string;
  tokenUri: string;
  /** `private_key_id`, sent as the JWT's `kid` when present. */
  keyId?: string;
  /** Names the account and its private key (a hash), for caching its tokens without keeping the key text. */
  id: string;
}

const SHAPE = 'a service-account JSON key with client_email, private_key and project_id';

/**
 * Reads a service-account JSON key. Throws an Error naming the expected shape, or the field that is missing or
 * unusable; the message never quotes the key.
 */
export function parseServiceAccount(key: string): ServiceAccount {
  let json: unknown;
  try {
    json = JSON.parse(key);
  } catch {
    throw new Error(`Vertex AI keys must be ${SHAPE} (the key is not JSON)`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new Error(`Vertex AI keys must be ${SHAPE} (the key is not a JSON object)`);
  const sa = json as Record<string, unknown>;
  const text = (field: string) => {
    const v = sa[field];
    if (typeof v !== 'string' || !v.trim())
      throw new Error(`Vertex AI keys must be ${SHAPE}: ${field} is missing`);
    return v.trim();
  };
  const clientEmail = text('client_email');
  // A key pasted through a tool that escaped it twice keeps its newlines as `\n` text.
  const pem = text('private_key').replace(/\\n/g, '\n');
  const projectId = text('project_id');
  if (!/^[a-z][a-z0-9.:-]{3,62}$/.test(projectId))
    throw new Error(`Vertex AI keys must be ${SHAPE}: project_id is not a Google Cloud project id`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw new Error(`Vertex AI keys must be ${SHAPE}: private_key is not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new Error(`Vertex AI keys must be ${SHAPE}: private_key is not an RSA key`);
  const tokenUri =
    typeof sa.token_uri === 'string' && sa.token_uri.trim() ? sa.token_uri.trim() : DEFAULT_TOKEN_URI;
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    throw new Error(`Vertex AI keys must be ${SHAPE}: token_uri is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`Vertex AI keys must be ${SHAPE}: token_uri is not an http(s) URL`);
  const keyId =
    typeof sa.private_key_id === 'string' && sa.private_key_id.trim() ? sa.private_key_id.trim() : undefined;
  const id = createHash('sha256').update(`${tokenUri}\n${clientEmail}\n${pem}`).digest('base64url');
  return { clientEmail, privateKey, projectId, tokenUri, keyId, id };
}
