import { Button, Popconfirm, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { TFunction } from 'i18next';
import { BudgetCell } from '../budgets/BudgetCell.tsx';
import type { ManageAction, UserRow } from './api.ts';

export function roleTag(role: number, t: TFunction) {
  if (role >= 100) return <Tag color="orange">{t('users.roleRoot')}</Tag>;
  if (role >= 10) return <Tag color="gold">{t('users.roleAdmin')}</Tag>;
  if (role === 1) return <Tag color="blue">{t('users.roleUser')}</Tag>;
  return <Tag>{t('common.unknown')}</Tag>;
}

export function statusTag(user: UserRow, t: TFunction) {
  if (user.DeletedAt) return <Tag color="default">{t('users.statusCancelled')}</Tag>;
  if (user.status === 1) return <Tag color="green">{t('users.statusActive')}</Tag>;
  if (user.status === 2) return <Tag color="red">{t('users.statusBanned')}</Tag>;
  return <Tag>{t('common.unknown')}</Tag>;
}

interface Handlers {
  format: (quota: number) => string;
  manage: (user: UserRow, action: ManageAction) => void;
  edit: (user: UserRow) => void;
  busyId: number | null;
  /** Pin the actions to the right edge (desktop). */
  pinActions: boolean;
}

/** The user table's columns; soft-deleted rows get no actions. */
export function userColumns(t: TFunction, h: Handlers): ColumnsType<UserRow> {
  const confirm = (user: UserRow, action: ManageAction, title: string, label: string, danger = false) => (
    <Popconfirm
      title={title}
      onConfirm={() => h.manage(user, action)}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
    >
      <Button size="small" danger={danger} disabled={h.busyId === user.id}>
        {label}
      </Button>
    </Popconfirm>
  );
  return [
    { title: t('common.id'), dataIndex: 'id', width: 70 },
    {
      title: t('users.username'),
      dataIndex: 'username',
      render: (_, u) => (
        <Tooltip title={u.display_name && u.display_name !== u.username ? u.display_name : undefined}>
          <Typography.Text>{u.username}</Typography.Text>
        </Tooltip>
      ),
    },
    { title: t('users.group'), dataIndex: 'group', render: (g: string) => <Tag color="blue">{g}</Tag> },
    {
      title: t('users.stats'),
      key: 'stats',
      render: (_, u) => (
        <Space size={2} orientation="vertical">
          <Tag color="green">
            {t('users.remaining')}: {h.format(u.quota)}
          </Tag>
          <Tag color="orange">
            {t('users.usedQuota')}: {h.format(u.used_quota)}
          </Tag>
          <Tag color="cyan">
            {t('users.calls')}: {u.request_count}
          </Tag>
        </Space>
      ),
    },
    { title: t('budget.column'), key: 'budget', render: (_, u) => <BudgetCell budget={u} /> },
    {
      title: t('users.invite'),
      key: 'invite',
      render: (_, u) => (
        <Space size={2} orientation="vertical">
          <Tag>
            {t('users.invitees')}: {u.aff_count}
          </Tag>
          <Tag>
            {t('users.reward')}: {h.format(u.aff_history_quota)}
          </Tag>
          <Tag>{u.inviter_id ? `${t('users.inviter')}: ${u.inviter_id}` : t('users.noInviter')}</Tag>
        </Space>
      ),
    },
    { title: t('users.role'), dataIndex: 'role', render: (r: number) => roleTag(r, t) },
    { title: t('common.status'), key: 'status', render: (_, u) => statusTag(u, t) },
    {
      title: t('common.actions'),
      key: 'actions',
      fixed: h.pinActions ? 'right' : undefined,
      width: 230,
      render: (_, u) =>
        u.DeletedAt ? null : (
          <Space size={4} wrap>
            {confirm(u, 'promote', t('users.confirmPromote'), t('users.promote'))}
            {confirm(u, 'demote', t('users.confirmDemote'), t('users.demote'))}
            {u.status === 1 ? (
              confirm(u, 'disable', t('users.confirmDisable'), t('common.disable'))
            ) : u.status === 3 ? (
              <Button size="small" disabled>
                {t('common.enable')}
              </Button>
            ) : (
              confirm(u, 'enable', t('users.confirmEnable'), t('common.enable'))
            )}
            <Button size="small" onClick={() => h.edit(u)}>
              {t('common.edit')}
            </Button>
            {confirm(u, 'delete', t('users.confirmDelete'), t('users.cancelAccount'), true)}
          </Space>
        ),
    },
  ];
}
