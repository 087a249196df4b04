import { CopyOutlined, DownOutlined } from '@ant-design/icons';
import { Button, Dropdown, Popconfirm, Popover, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../shared/copyText.ts';
import { feedback } from '../../shared/feedback.tsx';
import { useStatus } from '../../shared/status.ts';
import { fullKey, type Token } from './api.ts';
import { chatLinks, chatUrl } from './chatLinks.ts';

/** One row's buttons: view and copy the key, chat links, enable/disable, edit, delete. */
export function TokenActions({
  token,
  busy,
  onToggle,
  onEdit,
  onDelete,
}: {
  token: Token;
  busy: boolean;
  onToggle: () => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation();
  const { status } = useStatus();
  const links = chatLinks(status);
  const openChat = (template?: string) => {
    if (links === undefined) return feedback.message?.error(t('token.badChats'));
    const chosen = template ?? links[0]?.template;
    if (!chosen) return feedback.message?.info(t('token.noChats'));
    const address = (status.server_address as string | undefined) || window.location.origin;
    window.open(chatUrl(chosen, address, token.key), '_blank', 'noopener');
  };
  const enabled = token.status === 1;
  return (
    <Space size={4} wrap>
      <Popover
        trigger="click"
        content={
          <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
            {fullKey(token)}
          </Typography.Text>
        }
      >
        <Button size="small">{t('token.view')}</Button>
      </Popover>
      <Button
        size="small"
        icon={<CopyOutlined />}
        aria-label={t('common.copy')}
        onClick={() => copyText(fullKey(token))}
      >
        {t('common.copy')}
      </Button>
      <Dropdown.Button
        size="small"
        icon={<DownOutlined />}
        onClick={() => openChat()}
        menu={{
          items: (links ?? []).map((l, i) => ({ key: String(i), label: l.name })),
          onClick: ({ key }) => openChat(links?.[Number(key)]?.template),
        }}
      >
        {t('token.chat')}
      </Dropdown.Button>
      <Button size="small" loading={busy} onClick={onToggle}>
        {enabled ? t('common.disable') : t('common.enable')}
      </Button>
      <Button size="small" onClick={onEdit}>
        {t('common.edit')}
      </Button>
      <Popconfirm
        title={t('token.deleteConfirm', { name: token.name })}
        okButtonProps={{ danger: true }}
        onConfirm={onDelete}
      >
        <Button size="small" danger>
          {t('common.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
