import { RelayError } from '../../relay-error.ts';

export interface BaiduKey {
  apiKey: string;
  secretKey: string;
}

export const KEY_SHAPE = 'APIKey|SecretKey (the API Key and Secret Key of a Qianfan application)';

/** The two parts of a channel key; throws an Error naming the expected shape (never echoing the key). */
export function parseKey(key: string): BaiduKey {
  const parts = key.trim().split('|');
  if (parts.length !== 2 || parts.some((p) => !p || /\s/.test(p)))
    throw new Error(`Baidu Wenxin keys must be ${KEY_SHAPE}`);
  return { apiKey: parts[0], secretKey: parts[1] };
}

/** The key of a channel that is about to be called (a key saved before the check existed may be malformed). */
export function channelKey(key: string): BaiduKey {
  try {
    return parseKey(key);
  } catch (err) {
    throw new RelayError(401, (err as Error).message, 'upstream_error', 'invalid_channel_key', null, false);
  }
}
