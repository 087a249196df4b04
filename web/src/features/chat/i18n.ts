export default {
  zh: {
    chat: {
      noToken: '没有可用的令牌，请先创建一个已启用的令牌',
      noLinks: '请联系管理员配置聊天链接',
      badLink: '聊天链接配置错误，请联系管理员',
      redirecting: '正在跳转…',
      loading: '加载中，请稍候…',
    },
  },
  en: {
    chat: {
      noToken: 'No usable token: please create an enabled token first',
      noLinks: 'Please ask the admin to configure chat links',
      badLink: 'The chat link is misconfigured, please contact the admin',
      redirecting: 'Redirecting…',
      loading: 'Loading, please wait…',
    },
  },
};
