import { App } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';
import type { HookAPI as ModalHookAPI } from 'antd/es/modal/useModal';
import type { NotificationInstance } from 'antd/es/notification/interface';
import { ApiFailure } from '../api/client.ts';
import i18n from '../i18n/index.ts';

/**
 * antd's message/modal/notification bound to the themed App context, usable outside components
 * (query callbacks, helpers). `<FeedbackBridge />` fills it in once, inside antd's `<App>`.
 */
export const feedback: {
  message?: MessageInstance;
  modal?: ModalHookAPI;
  notification?: NotificationInstance;
} = {};

export function FeedbackBridge() {
  const { message, modal, notification } = App.useApp();
  feedback.message = message;
  feedback.modal = modal;
  feedback.notification = notification;
  return null;
}

/** The console's error messages by HTTP status (401 redirects; its text is shown on the login page). */
export function errorText(err: unknown): string {
  const t = i18n.t.bind(i18n);
  if (err instanceof ApiFailure) {
    if (err.code && i18n.exists(`errors.code.${err.code}`))
      return t('errors.prefix', { message: t(`errors.code.${err.code}`) });
    switch (err.status) {
      case 200:
        return t('errors.prefix', { message: err.message });
      case 0:
        return t('errors.network');
      case 401:
        return t('errors.expired');
      case 429:
        return t('errors.tooManyRequests');
      case 500:
        return t('errors.server');
      case 405:
        return t('errors.demo');
      default:
        return t('errors.prefix', { message: err.message });
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return t('errors.prefix', { message });
}

export function showError(err: unknown) {
  if (err instanceof ApiFailure && err.status === 401) return;
  const text = errorText(err);
  if (err instanceof ApiFailure && err.status === 405) feedback.message?.info(text);
  else feedback.message?.error(text);
}

export function showSuccess(text: string) {
  feedback.message?.success(text);
}

export function showInfo(text: string) {
  feedback.message?.info(text);
}

/**
 * "Please check your input" after a form's validation failed: one toast however often the user submits (a second
 * click replaces it instead of stacking a twin); the fields themselves carry the details.
 */
export function showCheckInput() {
  feedback.message?.error({ key: 'check-input', content: i18n.t('common.checkInput') });
}
