export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

export const UserStatus = { Enabled: 1, Disabled: 2, Deleted: 3 } as const;

export const isAdmin = (role: number | undefined) => (role ?? 0) >= Role.Admin;
export const isRoot = (role: number | undefined) => (role ?? 0) >= Role.Root;
