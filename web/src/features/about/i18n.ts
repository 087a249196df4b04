export default {
  zh: {
    about: {
      title: '关于',
      default: '{{name}} 是一个 AI 模型接口网关与管理控制台。',
      hint: '管理员可以在「系统设置 → 其他设置」中填写关于页面的内容（支持 Markdown、HTML 或 https 链接）。',
    },
  },
  en: {
    about: {
      title: 'About',
      default: '{{name}} is an AI model API gateway with a management console.',
      hint: 'Admins can write this page in Settings → Other (markdown, HTML, or an https link).',
    },
  },
};
