export * from './channel-settings.ts';
export * from './channel-types.ts';
export * from './quota.ts';
export * from './retention.ts';
export * from './roles.ts';
export * from './root-only-options.ts';
export * from './routing.ts';
export * from './statuses.ts';
