import { invalid } from './protocol.ts';

/** Task actions as the proxy names them. */
export const MjAction = {
  Imagine: 'IMAGINE',
  Describe: 'DESCRIBE',
  Blend: 'BLEND',
  Upscale: 'UPSCALE',
  Variation: 'VARIATION',
  HighVariation: 'HIGH_VARIATION',
  LowVariation: 'LOW_VARIATION',
  Reroll: 'REROLL',
  Pan: 'PAN',
  Zoom: 'ZOOM',
  CustomZoom: 'CUSTOM_ZOOM',
  Inpaint: 'INPAINT',
  Modal: 'MODAL',
  Shorten: 'SHORTEN',
  SwapFace: 'SWAP_FACE',
  Upload: 'UPLOAD',
  Video: 'VIDEO',
  Edits: 'EDITS',
} as const;
export type MjAction = (typeof MjAction)[keyof typeof MjAction];

/** The model a submit is routed and priced by: `mj_<action>`, and `swap_face` for face swaps. */
export function modelOf(action: string): string {
  return action === MjAction.SwapFace ? 'swap_face' : `mj_${action.toLowerCase()}`;
}

/**
 * Built-in per-call prices in US$ (new-api's defaults), used when the ModelPrice option does not name the
 * model. Inpaint and custom zoom are free: they are the second step of a modal whose first step was charged.
 */
export const MJ_DEFAULT_PRICES: Record<string, number> = {
  mj_imagine: 0.1,
  mj_variation: 0.1,
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  mj_edits: 0.1,
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  mj_upload: 0.05,
  swap_face: 0.05,
  mj_video: 0.8,
};

/** The price of an action nobody priced (neither the option nor the table above). */
export const MJ_FALLBACK_PRICE = 0.1;

/** `"<taskId> U1..U4|V1..V4|R"` (submit/simple-change) as the change it stands for. */
export function parseSimpleChange(content: unknown): { taskId: string; action: MjAction; index?: number } {
  const parts = typeof content === 'string' ? content.trim().split(/\s+/) : [];
  if (parts.length !== 2) throw invalid('content must be "<task id> U1..U4, V1..V4 or R"');
  const [taskId, op] = [parts[0], parts[1].toLowerCase()];
  if (op === 'r') return { taskId, action: MjAction.Reroll };
  const m = /^([uv])([1-4])$/.exec(op);
  if (!m) throw invalid('content must be "<task id> U1..U4, V1..V4 or R"');
  return { taskId, action: m[1] === 'u' ? MjAction.Upscale : MjAction.Variation, index: Number(m[2]) };
}

/**
 * A Plus button's customId (`MJ::JOB::upsample::2::<hash>`, `MJ::Outpaint::...`, `MJ::Inpaint::...`) as the
 * action it performs.
 */
export function actionOfCustomId(customId: unknown): MjAction {
  if (typeof customId !== 'string' || !customId) throw invalid('customId is required');
  const parts = customId.split('::');
  const name = (parts[1] === 'JOB' ? parts[2] : parts[1]) ?? '';
  if (name.includes('upsample')) return MjAction.Upscale;
  if (name === 'low_variation') return MjAction.LowVariation;
  if (name === 'high_variation') return MjAction.HighVariation;
  if (name.includes('variation')) return MjAction.Variation;
  if (name.includes('pan')) return MjAction.Pan;
  if (name.includes('reroll')) return MjAction.Reroll;
  if (name === 'Outpaint') return MjAction.Zoom;
  if (name === 'CustomZoom') return MjAction.CustomZoom;
  if (name === 'Inpaint') return MjAction.Inpaint;
  throw invalid(`unknown customId action: ${customId.slice(0, 100)}`);
}
