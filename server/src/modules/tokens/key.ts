import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random [0-9a-zA-Z] characters from the crypto RNG (no modulo bias). */
export function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** A token key: 48 characters, stored without the `sk-` that users see and send. */
export const newTokenKey = () => randomAlnum(48);

/** What users type: accepts the key with or without its `sk-` prefix. */
export const stripKeyPrefix = (key: string) => (key.startsWith('sk-') ? key.slice(3) : key);
