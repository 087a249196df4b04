/** The settings strings of the model fallbacks section (merged into `settings` by i18n.ts). */
export default {
  zh: {
    section: { modelFallbacks: '模型降级（备用模型）' },
    opt: {
      'model_fallbacks.models': '各模型的备用模型',
      'model_fallbacks.groups': '各分组的备用模型',
      'model_fallbacks.client_enabled': '允许请求自带备用模型列表（models）',
    },
    help: {
      fallbackModels:
        '{"模型": ["备用模型1", "备用模型2"]}：该模型的所有渠道都失败（可重试的错误）时依次改用备用模型，可跨格式；按实际回答的模型计费，响应头 X-ModelGate-Model 给出该模型。',
      fallbackGroups: '{"分组": {"模型": ["备用模型"]}}：优先于上面的按模型设置。',
      fallbackClient:
        '开启后，请求体中的 models 数组（与 OpenRouter 相同）作为该请求的备用模型；关闭时忽略。',
    },
  },
  en: {
    section: { modelFallbacks: 'Model fallbacks' },
    opt: {
      'model_fallbacks.models': 'Fallback models per model',
      'model_fallbacks.groups': 'Fallback models per group',
      'model_fallbacks.client_enabled': 'Requests may name their own fallbacks (models)',
    },
    help: {
      fallbackModels:
        '{"model": ["fallback 1", "fallback 2"]}: when every channel of the model fails with a retryable error, the next model is tried, in any format; billed at the answering model\'s price, which X-ModelGate-Model names.',
      fallbackGroups: '{"group": {"model": ["fallback"]}}: wins over the per-model setting above.',
      fallbackClient:
        "When on, a request body's models list (as OpenRouter takes it) gives that request's fallbacks; when off it is ignored.",
    },
  },
};
