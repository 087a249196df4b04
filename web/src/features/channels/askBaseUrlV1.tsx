import { Button, Space } from 'antd';
import type { TFunction } from 'i18next';
import { feedback } from '../../shared/feedback.tsx';

export type V1Choice = 'strip' | 'keep';

/**
 * Asks what to do with a base URL ending in /v1, with buttons that say what they do: save without /v1, save with
 * it, or go back to the form (closing the dialog goes back too). Resolves null for "back".
 */
export function askBaseUrlV1(t: TFunction, url: string): Promise<V1Choice | null> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (choice: V1Choice | null) => {
      if (done) return;
      done = true;
      dialog?.destroy();
      resolve(choice);
    };
    const dialog = feedback.modal?.confirm({
      title: t('channel.baseUrlV1Title'),
      content: t('channel.baseUrlV1Content', { url, stripped: url.replace(/\/v1$/, '') }),
      onCancel: () => finish(null),
      footer: (
        <Space wrap style={{ justifyContent: 'flex-end', width: '100%', marginTop: 12 }}>
          <Button onClick={() => finish(null)}>{t('channel.baseUrlV1Back')}</Button>
          <Button onClick={() => finish('keep')} data-testid="v1-keep">
            {t('channel.baseUrlV1Keep')}
          </Button>
          <Button type="primary" onClick={() => finish('strip')} data-testid="v1-strip">
            {t('channel.baseUrlV1Strip')}
          </Button>
        </Space>
      ),
    });
    if (!dialog) resolve('keep');
  });
}
