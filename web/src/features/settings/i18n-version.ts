/** The settings strings of the version check (merged into `settings` by i18n.ts). */
export default {
  zh: {
    checkUpdate: '检查更新',
    checkUpdateOff: '未配置发布地址（VERSION_CHECK_URL），无法检查更新',
    checkUpdateFailed: '检查更新失败',
    upToDate: '已是最新版本（最新发布：{{latest}}）',
    newVersion: '有新版本 {{latest}}（当前 {{current}}）',
    releasePage: '查看发布页面',
  },
  en: {
    checkUpdate: 'Check for updates',
    checkUpdateOff: 'No release address is configured (VERSION_CHECK_URL), so updates cannot be checked',
    checkUpdateFailed: 'Failed to check for updates',
    upToDate: 'Up to date (latest release: {{latest}})',
    newVersion: 'A new version is out: {{latest}} (running {{current}})',
    releasePage: 'Open the release page',
  },
};
