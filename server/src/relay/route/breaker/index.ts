import type { AppContext } from '../../../context.ts';
import { ChannelBreakers } from './breaker.ts';
import { breakerSettings, isBreakerOption } from './settings.ts';
import { shareBreakers } from './shared.ts';

export type { Outcome } from './breaker.ts';
export { ChannelBreakers } from './breaker.ts';

const all = new WeakMap<AppContext, ChannelBreakers>();

/** The channel breakers of one app context (the relay decides with them, the channel list shows them). */
export function breakersFor(ctx: AppContext): ChannelBreakers {
  let b = all.get(ctx);
  if (!b) {
    const share = shareBreakers(ctx);
    const breakers = new ChannelBreakers(breakerSettings(ctx.options), share.announce);
    const off = ctx.options.onChange((key) => {
      if (isBreakerOption(key)) breakers.configure(breakerSettings(ctx.options));
    });
    ctx.onClose(off);
    share.follow(breakers);
    all.set(ctx, breakers);
    b = breakers;
  }
  return b;
}
