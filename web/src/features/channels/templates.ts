/** Examples the "fill template" buttons put into the JSON fields of the channel form. */
export const TEMPLATES = {
  model_mapping: JSON.stringify({ 'gpt-3.5-turbo': 'gpt-3.5-turbo-0125' }, null, 2),
  status_code_mapping: JSON.stringify({ '400': '500' }, null, 2),
  setting: JSON.stringify({ force_format: true, thinking_to_content: false, proxy: '' }, null, 2),
  param_override: JSON.stringify({ temperature: 0 }, null, 2),
  vertex_region: JSON.stringify(
    { default: 'us-central1', 'claude-3-5-sonnet-20240620': 'europe-west1' },
    null,
    2,
  ),
} as const;
