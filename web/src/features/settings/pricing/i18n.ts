/** The price editor's words for where a price comes from (keys `settings.pricing.*`). */
export default {
  zh: {
    settings: {
      pricing: {
        source: '来源',
        sourceName: { builtin: '内置', saved: '已保存', override: '覆盖内置' },
        sourceHelp: {
          builtin: '网关内置价格：选项中未设置该模型时按此计费',
          saved: '保存在价格选项中的价格',
          override: '保存在价格选项中，替换了内置价格',
        },
        restore: '恢复内置',
        restoreConfirm: '将 {{name}} 恢复为内置价格吗？',
        builtInNote:
          '这里只列出保存在选项中的价格（共 {{saved}} 个模型）；未列出的模型按网关内置价格计费（{{builtin}} 个模型）。「可视化倍率设置」列出每个模型实际生效的价格。',
      },
    },
  },
  en: {
    settings: {
      pricing: {
        source: 'Source',
        sourceName: { builtin: 'Built-in', saved: 'Saved', override: 'Overrides built-in' },
        sourceHelp: {
          builtin: "The gateway's built-in price: charged while the options do not name this model",
          saved: 'A price saved in the price options',
          override: 'Saved in the price options, in place of the built-in price',
        },
        restore: 'Restore built-in',
        restoreConfirm: 'Restore the built-in price of {{name}}?',
        builtInNote:
          'These fields hold only the prices saved in the options ({{saved}} models); every model not named here is charged at the built-in price ({{builtin}} models). The visual editor lists the price in effect for every model.',
      },
    },
  },
};
