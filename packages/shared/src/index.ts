export * from './channel-types.ts';
export * from './quota.ts';
export * from './roles.ts';
export * from './statuses.ts';
