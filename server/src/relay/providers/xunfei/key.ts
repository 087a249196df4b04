import { RelayError } from '../../relay-error.ts';

export interface SparkKey {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

export const KEY_SHAPE =
  'APPID|APISecret|APIKey (the three credentials of an iFlytek open-platform application)';

/** The three parts of a channel key; throws an Error naming the expected shape (never echoing the key). */
export function parseKey(key: string): SparkKey {
  const parts = key.trim().split('|');
  if (parts.length !== 3 || parts.some((p) => !p || /\s/.test(p)) || !/^[A-Za-z0-9]+$/.test(parts[0]))
    throw new Error(`iFlytek Spark keys must be ${KEY_SHAPE}`);
  return { appId: parts[0], apiSecret: parts[1], apiKey: parts[2] };
}

/** The key of a channel about to be called (one saved before keys were checked may be malformed). */
export function channelKey(key: string): SparkKey {
  try {
    return parseKey(key);
  } catch (err) {
    throw new RelayError(401, (err as Error).message, 'upstream_error', 'invalid_channel_key', null, false);
  }
}
