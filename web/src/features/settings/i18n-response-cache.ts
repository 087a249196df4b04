/** The settings strings of the response cache section (merged into `settings` by i18n.ts). */
export default {
  zh: {
    section: { responseCache: '响应缓存' },
    opt: {
      'response_cache.groups': '开启缓存的分组',
      'response_cache.request_header_enabled': '允许请求用请求头开启缓存',
      'response_cache.ttl_seconds': '缓存有效期（秒）',
      'response_cache.max_mb': '缓存容量上限（MB）',
      'response_cache.hit_ratio': '命中计费比例',
      'response_cache.shared_across_users': '不同用户共享缓存',
      'response_cache.multiple_choices_enabled': '缓存 n > 1 的回答',
    },
    help: {
      responseCacheGroups: '这些分组的请求使用缓存；填 * 表示所有分组。令牌也可在编辑令牌时单独开启。',
      responseCacheHeader:
        '开启后，请求带 X-ModelGate-Cache: on 即使用缓存；任何请求都可以用 X-ModelGate-Cache: off 跳过缓存。',
      responseCacheRatio: '命中时按原本价格的这个比例扣费，0 表示免费。',
      responseCacheShared: '关闭时每个用户只会命中自己的缓存；开启后相同请求跨用户共用答案。',
      responseCacheCap: '单实例时在内存中，配置了 Redis 时在 Redis 中；超过上限时先淘汰最早的条目。',
    },
  },
  en: {
    section: { responseCache: 'Response cache' },
    opt: {
      'response_cache.groups': 'Groups with the cache on',
      'response_cache.request_header_enabled': 'Requests may turn the cache on by header',
      'response_cache.ttl_seconds': 'Time to live (seconds)',
      'response_cache.max_mb': 'Size cap (MB)',
      'response_cache.hit_ratio': 'Price of a hit (share of the full price)',
      'response_cache.shared_across_users': 'Share answers between users',
      'response_cache.multiple_choices_enabled': 'Keep answers with n > 1',
    },
    help: {
      responseCacheGroups:
        "Requests of these groups use the cache; * means every group. A token can also turn it on in the token's edit form.",
      responseCacheHeader:
        'When on, a request with X-ModelGate-Cache: on uses the cache; any request can skip it with X-ModelGate-Cache: off.',
      responseCacheRatio: 'A hit is charged this share of what the answer costs; 0 makes hits free.',
      responseCacheShared:
        'Off: each user only ever gets their own cached answers. On: identical requests share an answer across users.',
      responseCacheCap:
        'Kept in memory on one instance, in Redis when it is configured; past the cap the oldest entries go first.',
    },
  },
};
