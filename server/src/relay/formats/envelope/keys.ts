import type { OptionStore } from '../../../modules/options/store.ts';
import { envelopeKey } from './seal.ts';

/**
 * The envelope key of each app, found through the app's option store (which every upstream call carries), so
 * the converters need no config of their own. An app with no key registered seals and opens nothing.
 */
const keys = new WeakMap<OptionStore, Buffer>();

export function registerEnvelopeKey(options: OptionStore, secret: string): void {
  keys.set(options, envelopeKey(secret));
}

export const envelopeKeyOf = (options: OptionStore): Buffer | undefined => keys.get(options);
