import type { TFunction } from 'i18next';

/**
 * The descriptions the gateway ships in UserUsableGroups (server options registry): shown in the reader's
 * language. A description an admin wrote is shown as written.
 */
const BUILT_IN: Record<string, { text: string; key: string }> = {
  default: { text: '默认分组', key: 'common.groupDesc.default' },
  vip: { text: 'vip分组', key: 'common.groupDesc.vip' },
};

export function groupDesc(name: string, desc: string, t: TFunction): string {
  const known = BUILT_IN[name];
  return known && desc === known.text ? t(known.key) : desc;
}
