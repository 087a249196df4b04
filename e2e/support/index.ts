export * from './accounts.ts';
export * from './browser.ts';
export * from './console.ts';
export * from './gateway.ts';
export * from './layout.ts';
export * from './logs.ts';
export * from './poll.ts';
export * from './shoot.ts';
