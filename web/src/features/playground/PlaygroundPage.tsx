import { ClearOutlined, SendOutlined, SettingOutlined, StopOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import {
  Button,
  Card,
  Drawer,
  Empty,
  Form,
  Input,
  InputNumber,
  Select,
  Slider,
  Space,
  Tag,
  Typography,
  theme,
} from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { groupDesc } from '../../shared/groupDesc.ts';
import { useSession } from '../../shared/session.ts';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { streamChat } from './stream.ts';

type Status = 'loading' | 'incomplete' | 'complete' | 'error';
interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createAt: number;
  status: Status;
  /** The preset greetings are shown but never sent as history. */
  preset?: boolean;
}

const DEFAULT_MODEL = 'gpt-4o-mini';
let seq = 0;
const newId = () => `m${Date.now()}-${seq++}`;

function greetings(t: (k: string) => string): Message[] {
  const now = Date.now();
  return [
    {
      id: 'hello-user',
      role: 'user',
      content: t('playground.greetUser'),
      createAt: now,
      status: 'complete',
      preset: true,
    },
    {
      id: 'hello-bot',
      role: 'assistant',
      content: t('playground.greetBot'),
      createAt: now,
      status: 'complete',
      preset: true,
    },
  ];
}

/** Chat with a model through the console session. */
export default function PlaygroundPage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const isMobile = useIsMobile();
  const { user } = useSession();
  const groups = useQuery({
    queryKey: ['self-groups'],
    queryFn: () => api.get<Record<string, { desc: string; ratio: number }>>('/api/user/self/groups'),
  });
  const models = useQuery({
    queryKey: ['user-models'],
    queryFn: () => api.get<string[]>('/api/user/models'),
  });

  const [group, setGroup] = useState<string>('default');
  const [model, setModel] = useState<string>('');
  const [temperature, setTemperature] = useState(0.7);
  const [maxTokens, setMaxTokens] = useState(0);
  const [system, setSystem] = useState('');
  const [messages, setMessages] = useState<Message[]>(() => greetings(t));
  const [input, setInput] = useState('');
  const [panelOpen, setPanelOpen] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const bottom = useRef<HTMLDivElement>(null);

  const groupOptions = useMemo(() => {
    const entries = Object.entries(groups.data ?? {});
    const own = user?.group || 'default';
    entries.sort(([a], [b]) => (a === own ? -1 : b === own ? 1 : a.localeCompare(b)));
    return entries.map(([name, info]) => ({
      value: name,
      label: (
        <Space size={4}>
          <span>{name}</span>
          {info.desc && info.desc !== name && (
            <Typography.Text type="secondary">{groupDesc(name, info.desc, t)}</Typography.Text>
          )}
          <Tag>{`x${info.ratio}`}</Tag>
        </Space>
      ),
    }));
  }, [groups.data, user?.group, t]);

  useEffect(() => {
    if (groups.data && !(group in groups.data)) {
      const own = user?.group || 'default';
      setGroup(own in groups.data ? own : (Object.keys(groups.data)[0] ?? 'default'));
    }
  }, [groups.data, group, user?.group]);
  useEffect(() => {
    const list = models.data ?? [];
    if (list.length && !list.includes(model))
      setModel(list.includes(DEFAULT_MODEL) ? DEFAULT_MODEL : list[0]);
  }, [models.data, model]);
  // Keep the newest message in view whenever the list or a reply grows.
  const lastLength = messages.length ? messages[messages.length - 1].content.length + messages.length : 0;
  useEffect(() => {
    if (lastLength) bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [lastLength]);

  const busy = messages.some((m) => m.status === 'loading' || m.status === 'incomplete');
  const patch = (id: string, fn: (m: Message) => Message) =>
    setMessages((list) => list.map((m) => (m.id === id ? fn(m) : m)));

  const send = async () => {
    const text = input.trim();
    if (!text || busy || !model) return;
    const userMsg: Message = {
      id: newId(),
      role: 'user',
      content: text,
      createAt: Date.now(),
      status: 'complete',
    };
    const reply: Message = {
      id: newId(),
      role: 'assistant',
      content: '',
      createAt: Date.now(),
      status: 'loading',
    };
    const history = [...messages.filter((m) => !m.preset && m.status !== 'error'), userMsg];
    setMessages((list) => [...list, userMsg, reply]);
    setInput('');
    const controller = new AbortController();
    abort.current = controller;
    try {
      await streamChat(
        {
          model,
          group,
          temperature,
          ...(maxTokens > 0 ? { max_tokens: maxTokens } : {}),
          messages: [
            ...(system.trim() ? [{ role: 'system' as const, content: system.trim() }] : []),
            ...history.map((m) => ({ role: m.role, content: m.content })),
          ],
        },
        (delta) => patch(reply.id, (m) => ({ ...m, content: m.content + delta, status: 'incomplete' })),
        controller.signal,
      );
      patch(reply.id, (m) => ({ ...m, status: 'complete' }));
    } catch (err) {
      if (controller.signal.aborted) patch(reply.id, (m) => ({ ...m, status: 'complete' }));
      else
        patch(reply.id, (m) => ({
          ...m,
          status: 'error',
          content: `${m.content}${m.content ? '\n\n' : ''}${(err as Error).message}`,
        }));
    } finally {
      abort.current = null;
    }
  };

  const settings = (
    <Form layout="vertical">
      <Form.Item label={t('playground.group')}>
        <Select
          value={group}
          onChange={setGroup}
          options={groupOptions}
          loading={groups.isLoading}
          aria-label={t('playground.group')}
        />
      </Form.Item>
      <Form.Item label={t('playground.model')}>
        <Select
          showSearch
          value={model || undefined}
          onChange={setModel}
          options={(models.data ?? []).map((m) => ({ value: m, label: m }))}
          loading={models.isLoading}
          notFoundContent={t('playground.noModels')}
          aria-label={t('playground.model')}
        />
      </Form.Item>
      <Form.Item label={t('playground.temperature', { value: temperature })}>
        <Slider
          min={0.1}
          max={1}
          step={0.1}
          value={temperature}
          onChange={setTemperature}
          aria-label={t('playground.temperature', { value: temperature })}
        />
      </Form.Item>
      <Form.Item label={t('playground.maxTokens')} extra={t('playground.maxTokensHelp')}>
        <InputNumber
          min={0}
          precision={0}
          style={{ width: '100%' }}
          value={maxTokens}
          onChange={(v) => setMaxTokens(Math.max(0, Math.floor(Number(v) || 0)))}
        />
      </Form.Item>
      <Form.Item label={t('playground.system')}>
        <Input.TextArea
          autoSize={{ minRows: 3, maxRows: 8 }}
          value={system}
          onChange={(e) => setSystem(e.target.value)}
          placeholder={t('playground.systemPlaceholder')}
        />
      </Form.Item>
    </Form>
  );

  const bubble = (m: Message) => {
    const mine = m.role === 'user';
    return (
      <div
        key={m.id}
        style={{ display: 'flex', justifyContent: mine ? 'flex-end' : 'flex-start', marginBottom: 12 }}
        data-testid={`msg-${m.role}`}
        data-status={m.status}
      >
        <div
          style={{
            maxWidth: '85%',
            padding: '8px 12px',
            borderRadius: 12,
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
            background: mine ? token.colorPrimaryBg : token.colorFillTertiary,
            border: m.status === 'error' ? `1px solid ${token.colorError}` : undefined,
            color: m.status === 'error' ? token.colorError : token.colorText,
          }}
        >
          {m.content ||
            (m.status === 'loading' ? (
              <Typography.Text type="secondary">{t('playground.thinking')}</Typography.Text>
            ) : (
              ''
            ))}
        </div>
      </div>
    );
  };

  return (
    <div style={{ display: 'flex', gap: 16, alignItems: 'stretch', minHeight: 'calc(100vh - 140px)' }}>
      {isMobile ? (
        <Drawer
          open={panelOpen}
          onClose={() => setPanelOpen(false)}
          placement="left"
          title={t('playground.settings')}
          size="default"
        >
          {settings}
        </Drawer>
      ) : (
        <Card title={t('playground.settings')} size="small" style={{ width: 300, flexShrink: 0 }}>
          {settings}
        </Card>
      )}
      <Card
        size="small"
        style={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}
        styles={{ body: { flex: 1, display: 'flex', flexDirection: 'column', minHeight: 0 } }}
        title={t('playground.title')}
        extra={
          <Space>
            {isMobile && (
              <Button
                icon={<SettingOutlined />}
                onClick={() => setPanelOpen(true)}
                aria-label={t('playground.settings')}
              />
            )}
            <Button icon={<ClearOutlined />} onClick={() => setMessages(greetings(t))} disabled={busy}>
              {!isMobile && t('playground.clear')}
            </Button>
          </Space>
        }
      >
        <div style={{ flex: 1, overflowY: 'auto', minHeight: 240, maxHeight: 'calc(100vh - 280px)' }}>
          {messages.length ? messages.map(bubble) : <Empty />}
          <div ref={bottom} />
        </div>
        <Space.Compact style={{ width: '100%', marginTop: 12 }}>
          <Input.TextArea
            autoSize={{ minRows: 1, maxRows: 6 }}
            value={input}
            placeholder={t('playground.inputPlaceholder')}
            onChange={(e) => setInput(e.target.value)}
            onPressEnter={(e) => {
              if (!e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                send();
              }
            }}
            aria-label={t('playground.inputPlaceholder')}
          />
          {busy ? (
            <Button
              danger
              icon={<StopOutlined />}
              onClick={() => abort.current?.abort()}
              aria-label={t('playground.stop')}
            >
              {!isMobile && t('playground.stop')}
            </Button>
          ) : (
            <Button
              type="primary"
              icon={<SendOutlined />}
              onClick={send}
              disabled={!input.trim() || !model}
              aria-label={t('playground.send')}
            >
              {!isMobile && t('playground.send')}
            </Button>
          )}
        </Space.Compact>
      </Card>
    </div>
  );
}
