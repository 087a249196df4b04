/**
 * The Suno API proxy protocol (Suno-API/Suno-API, as new-api fronts it): every answer is `{code, message, data}`
 * with `code` "success" or an error code; submits answer the task id in `data`, fetches the tasks.
 */

export const SUCCESS = 'success';

/** What a submit asks for; the path's last part, case-insensitive. */
export const SunoAction = { Music: 'MUSIC', Lyrics: 'LYRICS' } as const;
export type SunoAction = (typeof SunoAction)[keyof typeof SunoAction];

export const parseAction = (raw: string): SunoAction | null => {
  const a = raw.toUpperCase();
  return a === SunoAction.Music || a === SunoAction.Lyrics ? a : null;
};

/** The model a submit is routed and priced by. */
export const modelOf = (action: string) => `suno_${action.toLowerCase()}`;

/** Built-in per-call prices in US$ (new-api's defaults), used when the ModelPrice option does not name them. */
export const SUNO_DEFAULT_PRICES: Record<string, number> = { suno_music: 0.1, suno_lyrics: 0.01 };
/** The price of a Suno model nobody priced. */
export const SUNO_FALLBACK_PRICE = 0.1;

export const SunoStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  Queued: 'QUEUED',
  InProgress: 'IN_PROGRESS',
  Failure: 'FAILURE',
  Success: 'SUCCESS',
  Unknown: 'UNKNOWN',
} as const;

export const TERMINAL_STATUSES = [SunoStatus.Success, SunoStatus.Failure] as const;
export const isTerminal = (status: string) => status === SunoStatus.Success || status === SunoStatus.Failure;
const KNOWN = new Set<string>(Object.values(SunoStatus));
export const isKnownStatus = (status: string) => KNOWN.has(status);

/**
 * The progress a status stands for, as the proxy reports none: a task moves forward through these, never back.
 * An upstream that reports its own percentage (another gateway) is taken at its word.
 */
export const STATUS_PROGRESS: Record<string, number> = {
  [SunoStatus.NotStart]: 0,
  [SunoStatus.Submitted]: 10,
  [SunoStatus.Queued]: 20,
  [SunoStatus.InProgress]: 50,
  [SunoStatus.Unknown]: 0,
  [SunoStatus.Success]: 100,
  [SunoStatus.Failure]: 100,
};

/** An answer of every Suno route. */
export interface SunoAnswer<T = unknown> {
  code: string;
  message: string;
  data: T;
}

/** A task as fetch answers it (new-api's TaskDto). */
export interface SunoTaskView {
  task_id: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: unknown;
}

/** A task as the upstream proxy reports it in `POST /suno/fetch`. */
export interface UpstreamTask {
  task_id?: unknown;
  action?: unknown;
  status?: unknown;
  fail_reason?: unknown;
  start_time?: unknown;
  finish_time?: unknown;
  progress?: unknown;
  data?: unknown;
}

/** An answer in the protocol's shape that is not a success. */
export class SunoError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new SunoError(400, 'invalid_request', message);
/** The proxy's answer for a task id it does not know (or that belongs to someone else). */
export const taskNotExist = () => new SunoError(400, 'task_not_exist', 'task_not_exist');

export const failureBody = (code: string, message: string): SunoAnswer<null> => ({
  code,
  message,
  data: null,
});
