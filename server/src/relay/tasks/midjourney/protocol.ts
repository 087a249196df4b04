/**
 * The midjourney-proxy wire protocol (novicezk/midjourney-proxy and its Plus edition) as clients and upstreams
 * speak it: submit answers `{code, description, result, properties}`, tasks as the proxy's Task object.
 */

/** The proxy's return codes. */
export const MjCode = {
  Success: 1,
  NotFound: 3,
  ValidationError: 4,
  Failure: 9,
  Existed: 21,
  InQueue: 22,
  QueueRejected: 23,
  BannedPrompt: 24,
} as const;

/** Codes of a submit the upstream took: the task exists there and is charged. */
export const ACCEPTED_CODES: ReadonlySet<number> = new Set([MjCode.Success, MjCode.Existed, MjCode.InQueue]);

export const MjStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  Modal: 'MODAL',
  InProgress: 'IN_PROGRESS',
  Failure: 'FAILURE',
  Success: 'SUCCESS',
  /** Plus only: the task was cancelled; the gateway records it as a failure. */
  Cancel: 'CANCEL',
} as const;

export const TERMINAL_STATUSES = [MjStatus.Success, MjStatus.Failure] as const;
export const isTerminal = (status: string) => status === MjStatus.Success || status === MjStatus.Failure;

/** A submit answer (SubmitResultVO); `result` is a list of URLs for upload-discord-images. */
export interface SubmitResult {
  code: number;
  description: string;
  result: string | string[] | null;
  properties: Record<string, unknown>;
}

/** A task as the proxy describes it (fetch, list-by-condition and its notify callback). */
export interface MjTask {
  id: string;
  action: string;
  customId?: string;
  botType?: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  videoUrl?: string;
  status: string;
  progress: string;
  failReason: string;
  buttons: unknown[];
  properties: Record<string, unknown>;
}

/** An answer in the proxy's shape that is not a success: the error text is in `description`. */
export class MjError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    description: string,
  ) {
    super(description);
  }
}

export const invalid = (description: string) => new MjError(400, MjCode.ValidationError, description);
export const notFound = (description = 'task not found') => new MjError(404, MjCode.NotFound, description);

export const failureBody = (code: number, description: string): SubmitResult => ({
  code,
  description,
  result: null,
  properties: {},
});
