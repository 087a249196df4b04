/** The rule for who may send a channel's keys elsewhere (server: modules/channels/custody.ts). */
export default {
  zh: {
    channel: {
      custodyAdmin:
        '密钥只发往渠道当前的去处：修改地址（Base URL）、代理设置、类型、区域或账号字段时须重新填写密钥（只有 root 可保留原密钥）。你复制的渠道不带密钥。',
      custodyRoot:
        '作为 root，修改地址（Base URL）、代理设置、类型、区域或账号字段时可保留密钥；管理员须重新填写密钥。',
      copyKeyless: '副本不带密钥，填写密钥之前保持禁用。',
    },
  },
  en: {
    channel: {
      custodyAdmin:
        'Keys go only where this channel sends them now: changing the base URL, proxy, type, region or account fields needs the keys entered again (only root can keep them). A copy you make carries no keys.',
      custodyRoot:
        'As root you may change the base URL, proxy, type, region or account fields and keep the keys; an admin must enter them again.',
      copyKeyless: 'The copy carries no keys and stays disabled until you enter them.',
    },
  },
};
