export const ChannelStatus = { Unknown: 0, Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;
export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;
/** Usage log types; 0 means "all" in filters. */
export const LogType = { All: 0, Topup: 1, Consume: 2, Manage: 3, System: 4, Error: 5 } as const;
export const TopupStatus = { Pending: 'pending', Success: 'success', Expired: 'expired' } as const;
