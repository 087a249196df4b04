import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Input, Select } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { feedback } from '../../shared/feedback.tsx';
import { PagedTable, usePageSize } from '../../shared/PagedTable.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { AddUserDrawer } from './AddUserDrawer.tsx';
import {
  listGroups,
  listUsers,
  type ManageAction,
  manageUser,
  type Paged,
  USERS_KEY,
  type UserRow,
} from './api.ts';
import { userColumns } from './columns.tsx';
import { EditUserDrawer } from './EditUserDrawer.tsx';
import { SelfEditPage } from './SelfEditPage.tsx';

function UserAdmin() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const params = useParams();
  const queryClient = useQueryClient();
  const { format } = useQuotaFormat();
  const isMobile = useIsMobile();
  const [pageSize, setPageSize] = usePageSize();
  const [page, setPage] = useState(1);
  const [keywordInput, setKeywordInput] = useState('');
  const [filter, setFilter] = useState({ keyword: '', group: '' });
  const [adding, setAdding] = useState(false);
  const [busyId, setBusyId] = useState<number | null>(null);
  const editId = params.id ? Number(params.id) : null;

  const queryKey = [...USERS_KEY, page, pageSize, filter.keyword, filter.group];
  const users = useQuery({
    queryKey,
    queryFn: () => listUsers({ page, pageSize, ...filter }),
    placeholderData: keepPreviousData,
  });
  const groups = useQuery({ queryKey: ['groups'], queryFn: listGroups });

  const manage = useMutation({
    mutationFn: ({ user, action }: { user: UserRow; action: ManageAction }) => manageUser(user.id, action),
    onMutate: ({ user }) => setBusyId(user.id),
    onSettled: () => setBusyId(null),
    onSuccess: (data, { user, action }) => {
      feedback.message?.success(t('common.operationDone'));
      queryClient.setQueryData<Paged<UserRow>>(
        queryKey,
        (old) =>
          old && {
            ...old,
            items: old.items.map((u) =>
              u.id === user.id
                ? {
                    ...u,
                    status: data?.status ?? u.status,
                    role: data?.role ?? u.role,
                    DeletedAt: action === 'delete' ? new Date().toISOString() : u.DeletedAt,
                  }
                : u,
            ),
          },
      );
    },
  });

  const columns = useMemo(
    () =>
      userColumns(t, {
        format,
        busyId,
        pinActions: !isMobile,
        manage: (user, action) => manage.mutate({ user, action }),
        edit: (user) => navigate(`/user/edit/${user.id}`),
      }),
    [t, format, busyId, manage, navigate, isMobile],
  );

  const search = () => {
    setPage(1);
    setFilter((f) => ({ ...f, keyword: keywordInput }));
  };

  return (
    <Card title={t('users.title')}>
      <Flex gap={8} wrap style={{ marginBottom: 16 }}>
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t('users.keyword')}
          value={keywordInput}
          onChange={(e) => setKeywordInput(e.target.value)}
          onPressEnter={search}
          style={{ flex: '1 1 260px', maxWidth: 420 }}
        />
        <Select
          allowClear
          placeholder={t('users.groupFilter')}
          value={filter.group || undefined}
          options={(groups.data ?? []).map((g) => ({ value: g, label: g }))}
          onChange={(g) => {
            setPage(1);
            setFilter({ keyword: keywordInput, group: g ?? '' });
          }}
          style={{ flex: '0 1 180px', minWidth: 140 }}
        />
        <Button type="primary" icon={<SearchOutlined />} onClick={search}>
          {t('common.search')}
        </Button>
        <Button icon={<PlusOutlined />} onClick={() => setAdding(true)}>
          {t('users.add')}
        </Button>
      </Flex>
      <PagedTable<UserRow>
        rowKey="id"
        loading={users.isFetching}
        dataSource={users.data?.items ?? []}
        columns={columns}
        page={page}
        pageSize={pageSize}
        total={users.data?.total ?? 0}
        onPageChange={(p, size) => {
          setPage(p);
          if (size !== pageSize) setPageSize(size);
        }}
        rowClassName={(u) => (u.DeletedAt ? 'row-cancelled' : '')}
      />
      <AddUserDrawer open={adding} onClose={() => setAdding(false)} />
      <EditUserDrawer id={editId} onClose={() => navigate('/user')} />
    </Card>
  );
}

/** /user (admin list), /user/edit/:id (the list with that user's edit drawer open), /user/edit (own profile). */
export default function UsersPage() {
  const { pathname } = useLocation();
  if (pathname.replace(/\/$/, '') === '/user/edit') return <SelfEditPage />;
  return <UserAdmin />;
}
