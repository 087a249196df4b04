export default {
  zh: {
    rateLimits: {
      rpm: '每分钟请求数（RPM）',
      tpm: '每分钟 Token 数（TPM）',
      tokenHelp: '0 表示不限制',
      tpmHelp: '0 表示不限制；先按估算计数，完成后按实际用量修正',
      invalid: '请输入 0 到 1000000000 之间的整数',
      perMinute: '{{rpm}} RPM',
      tokensPerMinute: '{{tpm}} TPM',
      section: '分组与模型的 RPM / TPM 限制',
      option: '按分组和模型限制（JSON）',
      optionHelp:
        '{"分组": {"模型或 *": {"rpm": 每分钟请求数, "tpm": 每分钟 Token 数, "scope": "user" 或 "group"}}}。"*" 统计该分组的所有模型，具名模型另外单独统计，请求须同时满足；scope 为 user（默认）时每个用户各自计数，为 group 时分组内用户共享；0 表示不限制。与上方开关无关，{} 表示不限制。',
      optionInvalid:
        '格式应为 {"分组": {"模型或 *": {"rpm": 整数 ≥ 0, "tpm": 整数 ≥ 0, "scope": "user" 或 "group"}}}',
    },
  },
  en: {
    rateLimits: {
      rpm: 'Requests per minute (RPM)',
      tpm: 'Tokens per minute (TPM)',
      tokenHelp: '0 = no limit',
      tpmHelp: '0 = no limit; estimated at the start, corrected by the real usage',
      invalid: 'Enter a whole number from 0 to 1000000000',
      perMinute: '{{rpm}} RPM',
      tokensPerMinute: '{{tpm}} TPM',
      section: 'RPM / TPM by group and model',
      option: 'Limits by group and model (JSON)',
      optionHelp:
        '{"group": {"model or *": {"rpm": requests per minute, "tpm": tokens per minute, "scope": "user" or "group"}}}. "*" counts all models of the group together, a named model also counts on its own, and a request must pass both; scope "user" (the default) gives each user the limit, "group" makes the group share it; 0 = no limit. Independent of the switch above; {} = none.',
      optionInvalid:
        'Expected {"group": {"model or *": {"rpm": whole number >= 0, "tpm": whole number >= 0, "scope": "user" or "group"}}}',
    },
  },
};
