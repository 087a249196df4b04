import { createServer, type Server, type Socket } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message (headers and body) as sent, dot-unstuffed. */
  data: string;
  auth?: string;
}

/**
 * A tiny SMTP server on 127.0.0.1 speaking the commands nodemailer uses (EHLO, AUTH PLAIN/LOGIN, MAIL, RCPT,
 * DATA, QUIT), without TLS. It keeps what it receives in `mails`; `refuse` makes it reject the next message.
 */
export async function startFakeSmtp(): Promise<{
  port: number;
  mails: ReceivedMail[];
  refuse: boolean;
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const state = { refuse: false };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let inData = false;
    let loginStep = 0;
    let mail: ReceivedMail = { from: '', to: [], data: '' };
    const say = (line: string) => socket.write(`${line}\r\n`);
    say('220 fake-smtp ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end).replace(/\r\n\.\./g, '\r\n.');
          buffer = buffer.slice(end + 5);
          inData = false;
          if (state.refuse) {
            state.refuse = false;
            say('554 rejected');
          } else {
            mails.push(mail);
            say('250 queued');
          }
          mail = { from: '', to: [], data: '', auth: mail.auth };
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const cmd = line.toUpperCase();
        if (loginStep === 1) {
          mail.auth = Buffer.from(line, 'base64').toString();
          loginStep = 2;
          say('334 UGFzc3dvcmQ6');
        } else if (loginStep === 2) {
          mail.auth += `:${Buffer.from(line, 'base64').toString()}`;
          loginStep = 0;
          say('235 ok');
        } else if (cmd.startsWith('EHLO') || cmd.startsWith('HELO')) {
          say('250-fake-smtp');
          say('250 AUTH PLAIN LOGIN');
        } else if (cmd.startsWith('AUTH PLAIN')) {
          const [, user, pass] = Buffer.from(line.slice(11).trim(), 'base64').toString().split('\0');
          mail.auth = `${user}:${pass}`;
          say('235 ok');
        } else if (cmd.startsWith('AUTH LOGIN')) {
          loginStep = 1;
          say('334 VXNlcm5hbWU6');
        } else if (cmd.startsWith('MAIL FROM:')) {
          mail.from = line
            .slice(10)
            .trim()
            .replace(/^<|>.*$/g, '');
          say('250 ok');
        } else if (cmd.startsWith('RCPT TO:')) {
          mail.to.push(
            line
              .slice(8)
              .trim()
              .replace(/^<|>.*$/g, ''),
          );
          say('250 ok');
        } else if (cmd === 'DATA') {
          inData = true;
          say('354 go ahead');
        } else if (cmd === 'QUIT') {
          say('221 bye');
          socket.end();
        } else {
          say('250 ok');
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    mails,
    get refuse() {
      return state.refuse;
    },
    set refuse(v: boolean) {
      state.refuse = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
