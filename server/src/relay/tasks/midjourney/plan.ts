import type { AppContext } from '../../../context.ts';
import { actionOfCustomId, MjAction, parseSimpleChange } from './actions.ts';
import { invalid, MjCode, MjError, MjStatus, notFound } from './protocol.ts';
import { ownTask, type TaskRow } from './store.ts';

/** The submit endpoints, by the last part of their path. */
export type SubmitKind =
  | 'imagine'
  | 'change'
  | 'simple-change'
  | 'blend'
  | 'describe'
  | 'modal'
  | 'shorten'
  | 'action'
  | 'swap_face'
  | 'upload-discord-images'
  | 'video'
  | 'edits';

/** What a valid submit asks for: the action (so the model and price), the prompt recorded, the parent task. */
export interface SubmitPlan {
  action: MjAction;
  prompt: string;
  /** The caller's earlier task a follow-up acts on; the follow-up goes to that task's channel. */
  parent?: TaskRow;
}

type Body = Record<string, unknown>;

const text = (b: Body, key: string) => (typeof b[key] === 'string' ? (b[key] as string).trim() : '');

function requireText(b: Body, key: string): string {
  const v = text(b, key);
  if (!v) throw invalid(`${key} is required`);
  return v;
}

function requireImages(b: Body, key: string, min: number, max: number): void {
  const list = b[key];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || !x))
    throw invalid(`${key} must be a list of base64 images`);
  if (list.length < min || list.length > max) throw invalid(`${key} must hold ${min} to ${max} images`);
}

/**
 * Checks a submit body the way the proxy would (code 4 with the reason, before anything is billed) and, for
 * follow-ups, finds the caller's parent task: another user's task or an unknown id is the proxy's "not found".
 */
export async function planSubmit(
  ctx: AppContext,
  userId: number,
  kind: SubmitKind,
  b: Body,
): Promise<SubmitPlan> {
  const parentOf = async (taskId: string, action: MjAction): Promise<SubmitPlan> => {
    if (!taskId) throw invalid('taskId is required');
    const parent = await ownTask(ctx, userId, taskId);
    if (!parent) throw notFound(`task ${taskId.slice(0, 64)} not found`);
    const mustSucceed = action !== MjAction.Modal && ctx.options.bool('MjActionCheckSuccessEnabled');
    if (mustSucceed && parent.status !== MjStatus.Success)
      throw new MjError(
        400,
        MjCode.ValidationError,
        `task ${parent.mj_id} has not succeeded (${parent.status || 'submitted'})`,
      );
    return { action, prompt: parent.prompt ?? '', parent };
  };

  switch (kind) {
    case 'imagine':
      if (b.base64Array !== undefined) requireImages(b, 'base64Array', 0, 5);
      return { action: MjAction.Imagine, prompt: requireText(b, 'prompt') };
    case 'shorten':
      return { action: MjAction.Shorten, prompt: requireText(b, 'prompt') };
    case 'describe':
      if (!text(b, 'base64') && !text(b, 'link')) throw invalid('base64 is required');
      return { action: MjAction.Describe, prompt: '' };
    case 'blend':
      requireImages(b, 'base64Array', 2, 5);
      if (b.dimensions !== undefined && !['PORTRAIT', 'SQUARE', 'LANDSCAPE'].includes(String(b.dimensions)))
        throw invalid('dimensions must be PORTRAIT, SQUARE or LANDSCAPE');
      return { action: MjAction.Blend, prompt: '' };
    case 'upload-discord-images':
      requireImages(b, 'base64Array', 1, 10);
      return { action: MjAction.Upload, prompt: '' };
    case 'swap_face':
      requireText(b, 'sourceBase64');
      requireText(b, 'targetBase64');
      return { action: MjAction.SwapFace, prompt: 'InsightFace' };
    case 'video':
      if (!text(b, 'prompt') && !text(b, 'image') && !text(b, 'taskId'))
        throw invalid('prompt, image or taskId is required');
      return { action: MjAction.Video, prompt: text(b, 'prompt') };
    case 'edits':
      requireText(b, 'image');
      return { action: MjAction.Edits, prompt: requireText(b, 'prompt') };
    case 'change': {
      const action = text(b, 'action');
      if (action !== MjAction.Upscale && action !== MjAction.Variation && action !== MjAction.Reroll)
        throw invalid('action must be UPSCALE, VARIATION or REROLL');
      if (
        action !== MjAction.Reroll &&
        !(Number.isInteger(b.index) && (b.index as number) >= 1 && (b.index as number) <= 4)
      )
        throw invalid('index must be 1 to 4');
      return parentOf(text(b, 'taskId'), action);
    }
    case 'simple-change': {
      const c = parseSimpleChange(b.content);
      return parentOf(c.taskId, c.action);
    }
    case 'action':
      return parentOf(text(b, 'taskId'), actionOfCustomId(b.customId));
    case 'modal':
      return parentOf(text(b, 'taskId'), MjAction.Modal);
  }
}
