// A real SMTP server on 127.0.0.1 (smtp-server) that parses what arrives (mailparser), for the mail tests.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  url: string;
  messages: ParsedMail[];
  /** The first message (already received or arriving within timeoutMs) to `to` that matches. */
  waitFor(to: string, match?: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** Holds every message in its DATA phase (the sender waits for our reply) until the returned function is called. */
  hold(): () => void;
  close(): Promise<void>;
}

const recipients = (mail: ParsedMail) =>
  [mail.to].flat().flatMap((a) => (a ? a.value.map((v) => (v.address ?? '').toLowerCase()) : []));

export async function startSmtpServer(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const waiters = new Set<() => void>();
  let held: Promise<void> = Promise.resolve();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      held
        .then(() => simpleParser(stream))
        .then((mail) => {
          messages.push(mail);
          for (const wake of waiters) wake();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  function find(to: string, match: (mail: ParsedMail) => boolean): ParsedMail | undefined {
    return messages.find((m) => recipients(m).includes(to.toLowerCase()) && match(m));
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(to, match = () => true, timeoutMs = 5000) {
      const found = find(to, match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const wake = () => {
          const mail = find(to, match);
          if (!mail) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    hold() {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return release;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The sign-in link of a message (${PUBLIC_BASE_URL}/auth/verify?token=…) and its token. */
export function signInLink(mail: ParsedMail): { url: string; token: string } {
  const match = /(https?:\/\/\S+\/auth\/verify\?token=([A-Za-z0-9_-]+))/.exec(mail.text ?? '');
  if (!match) throw new Error(`no sign-in link in: ${mail.text}`);
  return { url: match[1]!, token: match[2]! };
}
