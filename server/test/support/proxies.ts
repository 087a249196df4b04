import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';

/** A forward proxy on 127.0.0.1 for tests, recording the `host:port` targets it connected to. */
export interface TestProxy {
  url: string;
  targets: string[];
  close(): Promise<void>;
}

function tunnel(client: Socket, host: string, port: number, ready: () => void, head?: Buffer) {
  const upstream = connect(port, host, () => {
    ready();
    if (head?.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  const drop = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.on('error', drop);
  client.on('error', drop);
}

function closer(server: { close(cb: () => void): void }, sockets: Set<Socket>) {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

/** An HTTP proxy that answers CONNECT with a tunnel, as corporate proxies do. */
export async function startHttpProxy(): Promise<TestProxy> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: Socket, head) => {
    const target = req.url ?? '';
    targets.push(target);
    const cut = target.lastIndexOf(':');
    tunnel(
      client,
      target.slice(0, cut),
      Number(target.slice(cut + 1)),
      () => client.write('HTTP/1.1 200 Connection Established\r\n\r\n'),
      head,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, targets, close: closer(server, sockets) };
}

/** A SOCKS5 proxy (no authentication, CONNECT only; RFC 1928). */
export async function startSocks5Proxy(): Promise<TestProxy> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.once('data', (hello: Buffer) => {
      if (hello[0] !== 5) return client.destroy();
      client.write(Buffer.from([5, 0]));
      client.once('data', (req: Buffer) => {
        if (req[0] !== 5 || req[1] !== 1) return client.destroy();
        let host: string;
        let at: number;
        if (req[3] === 1) {
          host = [...req.subarray(4, 8)].join('.');
          at = 8;
        } else if (req[3] === 3) {
          host = req.subarray(5, 5 + req[4]).toString();
          at = 5 + req[4];
        } else return client.destroy();
        const port = req.readUInt16BE(at);
        targets.push(`${host}:${port}`);
        tunnel(client, host, port, () => client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `socks5://127.0.0.1:${port}`, targets, close: closer(server, sockets) };
}
