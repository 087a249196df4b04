import { serveMock } from './mock-server.ts';

export interface MockRelease {
  /** The `releases/latest` address to give VERSION_CHECK_URL. */
  url: string;
  /** How many times it was read. */
  hits: number;
  close(): Promise<void>;
}

/** A local stand-in for a public release API (GitHub's `releases/latest` shape). */
export async function startMockRelease(release: {
  tag_name: string;
  body: string;
  html_url?: string;
}): Promise<MockRelease> {
  const state = { hits: 0 };
  const mock = await serveMock(async (req, res) => {
    if (!req.url?.endsWith('/releases/latest')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"Not Found"}');
      return;
    }
    state.hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        published_at: '2026-11-20T08:00:00Z',
        html_url: `https://example.com/releases/tag/${release.tag_name}`,
        ...release,
      }),
    );
  });
  return {
    url: `${mock.url}/repos/modelgate/modelgate/releases/latest`,
    get hits() {
      return state.hits;
    },
    close: mock.close,
  };
}
