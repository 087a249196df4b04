import type { AppContext } from '../../../context.ts';
import { invalid, SunoAction, taskNotExist } from './protocol.ts';
import { ownTask, type TaskRow } from './store.ts';

/** What a valid submit asks for: the body the upstream gets, the prompt recorded, the task a continuation extends. */
export interface SubmitPlan {
  action: SunoAction;
  body: Record<string, unknown>;
  /** What the sensitive-word check reads and the task log keeps. */
  prompt: string;
  /** The caller's earlier task whose clip a continuation extends; it goes to that task's channel. */
  parent?: TaskRow;
}

/** The default model version of a song, as the proxy and new-api set it. */
export const DEFAULT_MV = 'chirp-v3-0';

const TEXT_FIELDS = [
  'prompt',
  'gpt_description_prompt',
  'mv',
  'title',
  'tags',
  'task_id',
  'continue_clip_id',
];
const MAX_TEXT = 10_000;

const text = (b: Record<string, unknown>, key: string) =>
  typeof b[key] === 'string' ? (b[key] as string).trim() : '';

/**
 * Checks a submit body the way the proxy would, before anything is billed (a 400 with the reason), and finds
 * the caller's task a continuation (`continue_clip_id`) extends: another user's task or an unknown id is the
 * proxy's "task not exist".
 */
export async function planSubmit(
  ctx: AppContext,
  userId: number,
  action: SunoAction,
  b: Record<string, unknown>,
): Promise<SubmitPlan> {
  for (const key of TEXT_FIELDS) {
    const v = b[key];
    if (v !== undefined && v !== null && typeof v !== 'string') throw invalid(`${key} must be a string`);
    if (typeof v === 'string' && v.length > MAX_TEXT)
      throw invalid(`${key} is longer than ${MAX_TEXT} characters`);
  }
  for (const key of ['make_instrumental', 'instrumental'])
    if (b[key] !== undefined && typeof b[key] !== 'boolean') throw invalid(`${key} must be true or false`);
  if (b.continue_at !== undefined && b.continue_at !== null)
    if (typeof b.continue_at !== 'number' || !Number.isFinite(b.continue_at) || b.continue_at < 0)
      throw invalid('continue_at must be a number of seconds');

  if (action === SunoAction.Lyrics) {
    const prompt = text(b, 'prompt');
    if (!prompt) throw invalid('prompt_empty');
    return { action, body: { ...b, prompt }, prompt };
  }

  const prompt = text(b, 'gpt_description_prompt') || text(b, 'prompt');
  if (!prompt && !text(b, 'tags') && !text(b, 'continue_clip_id'))
    throw invalid('prompt, gpt_description_prompt or tags is required');
  const body = { ...b, mv: text(b, 'mv') || DEFAULT_MV };
  if (!text(b, 'continue_clip_id')) return { action, body, prompt };
  const taskId = text(b, 'task_id');
  if (!taskId) throw invalid('task id is empty');
  const parent = await ownTask(ctx, userId, taskId);
  if (!parent) throw taskNotExist();
  return { action, body, prompt, parent };
}
