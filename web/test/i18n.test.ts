import { describe, expect, test } from 'vitest';
import common from '../src/i18n/common.ts';
import shell from '../src/i18n/shell.ts';

type Dict = { [key: string]: string | Dict };
type Locale = { default: { zh: Dict; en: Dict } };

function keys(dict: Dict, prefix = ''): string[] {
  return Object.entries(dict).flatMap(([k, v]) =>
    typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`),
  );
}

const features = import.meta.glob<Locale>('../src/features/**/i18n.ts', { eager: true });
const files: Array<[string, Locale['default']]> = [
  ['i18n/common.ts', common],
  ['i18n/shell.ts', shell],
  ...Object.entries(features).map(
    ([path, mod]) => [path.replace('../src/', ''), mod.default] as [string, Locale['default']],
  ),
];

describe('translations', () => {
  test.each(files)('%s has the same keys in zh and en', (_name, locale) => {
    const zh = keys(locale.zh).sort();
    const en = keys(locale.en).sort();
    expect(en.filter((k) => !zh.includes(k))).toEqual([]);
    expect(zh.filter((k) => !en.includes(k))).toEqual([]);
  });
});
