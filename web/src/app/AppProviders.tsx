import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider, theme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FeedbackBridge } from '../shared/feedback.tsx';
import { ThemeModeProvider, useThemeMode } from '../shared/theme.tsx';
import { usePrefersReducedMotion } from '../shared/usePrefersReducedMotion.ts';
import { createQueryClient } from './queryClient.ts';

function ThemedAntd({ children }: { children: ReactNode }) {
  const { mode } = useThemeMode();
  const { i18n } = useTranslation();
  const en = i18n.language === 'en';
  const reducedMotion = usePrefersReducedMotion();
  useEffect(() => {
    dayjs.locale(en ? 'en' : 'zh-cn');
  }, [en]);
  return (
    <ConfigProvider
      locale={en ? enUS : zhCN}
      button={{ autoInsertSpace: false }}
      wave={{ disabled: reducedMotion }}
      theme={{
        algorithm: mode === 'dark' ? theme.darkAlgorithm : theme.defaultAlgorithm,
        cssVar: {},
        token: { motion: !reducedMotion },
      }}
    >
      <AntApp>
        <FeedbackBridge />
        {children}
      </AntApp>
    </ConfigProvider>
  );
}

/** Theme (light/dark), antd locale following the language, no animations when the system asks for less motion, TanStack Query, and antd's message/modal context. */
export function AppProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeModeProvider>
        <ThemedAntd>{children}</ThemedAntd>
      </ThemeModeProvider>
    </QueryClientProvider>
  );
}
