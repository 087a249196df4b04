import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';

/** The `domain` each API version serves (iFlytek's list: Lite, Pro, Pro-128K, Max, Max-32K, 4.0 Ultra). */
const DOMAINS: Record<string, string> = {
  'v1.1': 'lite',
  'v2.1': 'generalv2',
  'v3.1': 'generalv3',
  'pro-128k': 'pro-128k',
  'v3.5': 'generalv3.5',
  'max-32k': 'max-32k',
  'v4.0': '4.0Ultra',
};

/** Model names that say which version they are: the domains themselves, product and legacy one-api names. */
const MODEL_VERSIONS: Record<string, string> = {
  lite: 'v1.1',
  general: 'v1.1',
  'spark-lite': 'v1.1',
  sparkdesk: 'v1.1',
  'sparkdesk-v1.1': 'v1.1',
  generalv2: 'v2.1',
  'sparkdesk-v2.1': 'v2.1',
  generalv3: 'v3.1',
  'spark-pro': 'v3.1',
  'sparkdesk-v3.1': 'v3.1',
  'pro-128k': 'pro-128k',
  'spark-pro-128k': 'pro-128k',
  'sparkdesk-v3.1-128k': 'pro-128k',
  'generalv3.5': 'v3.5',
  'spark-max': 'v3.5',
  'sparkdesk-v3.5': 'v3.5',
  'max-32k': 'max-32k',
  'spark-max-32k': 'max-32k',
  'sparkdesk-v3.5-32k': 'max-32k',
  '4.0ultra': 'v4.0',
  'spark-4.0-ultra': 'v4.0',
  'spark-ultra': 'v4.0',
  'sparkdesk-v4.0': 'v4.0',
};

export const DEFAULT_VERSION = 'v3.5';
/** What the `api_version` setting (or, as one-api kept it, the channel's `other`) may hold. */
export const VERSION_PATTERN = /^(v\d+\.\d+|pro-128k|max-32k)$/;

export interface SparkTarget {
  /** The path on the host: `/v3.5/chat`, or `/chat/max-32k` for the two versions named after their model. */
  path: string;
  domain: string;
}

const setting = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/**
 * Where a model is served: a model named after a version (`4.0Ultra`, `spark-max`, `SparkDesk-v3.5`) decides
 * it; any other name uses the channel's `api_version` setting, else its `other` field, else v3.5. The `domain`
 * setting overrides the version's domain (a version this table does not know yet, or a private deployment).
 */
export function sparkTarget(ch: ChannelEntry, model: string): SparkTarget {
  const other = ch.other.trim();
  const version =
    MODEL_VERSIONS[model.toLowerCase()] ||
    setting(ch.setting.api_version) ||
    (VERSION_PATTERN.test(other) ? other : '') ||
    DEFAULT_VERSION;
  const domain = setting(ch.setting.domain) || DOMAINS[version];
  if (!domain)
    throw new RelayError(
      500,
      `channel #${ch.id} uses Spark API version ${version}, whose domain is not known: set the domain setting`,
      'new_api_error',
      'channel_setting_invalid',
      null,
      false,
    );
  return { path: version.startsWith('v') ? `/${version}/chat` : `/chat/${version}`, domain };
}
