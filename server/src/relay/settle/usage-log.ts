import type { LogRow } from '../../ledger/log-insert.ts';
import type { Charge } from '../../ledger/writer.ts';
import type { Caller } from '../admit/auth.ts';
import type { RelayCall } from '../relay-call.ts';

/** Who asked for what: the columns of a usage log row that come from the request, whatever its outcome. */
export interface LogSubject {
  userId: number;
  username: string;
  tokenId: number;
  tokenName: string;
  group: string;
  model: string;
  stream: boolean;
  ip: string;
  requestId: string;
}

/** What the request came to: the rest of the row. A column left out is 0 (nothing charged, counted or timed). */
export interface LogOutcome {
  /** A LogType (Consume, Error). */
  type: number;
  content: string;
  /** The row's `other` JSON: the details the console shows. */
  other: Record<string, unknown>;
  channelId?: number;
  quota?: number;
  /** What it cost upstream, in quota. */
  cost?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** Whole seconds. */
  useTime?: number;
  /** Milliseconds to the first byte of the answer. */
  firstTime?: number;
}

/** The subject of a caller's request for `model` (a task's or a relay call's). */
export const callerSubject = (
  caller: Caller,
  model: string,
  stream: boolean,
  ip: string,
  requestId: string,
): LogSubject => ({
  userId: caller.user.id,
  username: caller.user.username,
  tokenId: caller.token?.id ?? 0,
  tokenName: caller.tokenName,
  group: caller.group,
  model,
  stream,
  ip,
  requestId,
});

/** The subject of a relay call: its caller, the model and stream flag it asked for, its request's id and IP. */
export const subjectOf = ({ caller, input, req }: Pick<RelayCall, 'caller' | 'input' | 'req'>): LogSubject =>
  callerSubject(caller, input.info.model, input.info.stream, req.ip ?? '', req.id);

/** The one place a relay usage log row is put together: a new column is added here, for every path. */
export function usageLogRow(s: LogSubject, o: LogOutcome): LogRow {
  return {
    user_id: s.userId,
    created_at: Math.floor(Date.now() / 1000),
    type: o.type,
    content: o.content,
    username: s.username,
    token_name: s.tokenName,
    token_id: s.tokenId,
    model_name: s.model,
    quota: o.quota ?? 0,
    cost: o.cost ?? 0,
    prompt_tokens: o.promptTokens ?? 0,
    completion_tokens: o.completionTokens ?? 0,
    use_time: o.useTime ?? 0,
    first_time: o.firstTime ?? 0,
    is_stream: s.stream ? 1 : 0,
    channel_id: o.channelId ?? 0,
    group: s.group,
    ip: s.ip,
    request_id: s.requestId,
    other: JSON.stringify(o.other),
  };
}

/**
 * What the ledger's writer queues for a caller's request: the outcome's quota on the user's, token's and
 * channel's counters, and the log row when there is one. `countRequest` false keeps the request counters still.
 */
export const chargeOf = (
  caller: Caller,
  o: LogOutcome,
  countRequest: boolean,
  log: LogRow | undefined,
): Charge => ({
  userId: caller.user.id,
  user: caller.user.balance,
  tokenId: caller.token?.id ?? 0,
  token: caller.token?.balance,
  channelId: o.channelId ?? 0,
  quota: o.quota ?? 0,
  countRequest,
  log,
});
