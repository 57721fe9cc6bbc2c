// Without SMTP, every message becomes an .eml file in DATA_DIR/outbox/ and its sign-in link is logged, so a fresh
// install works end to end. The log line carries the link only, never an API key. The file is for a person to read
// and copy from: its body is written as it is (8bit UTF-8), not quoted-printable, whose soft line breaks and `=3D`
// break a key or a link copied out of it; any mail client still opens it.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mailer, MailLog, MailMessage } from './types.js';

/** A header value as it stands when it is ASCII, else as an RFC 2047 encoded word. */
function headerValue(value: string): string {
  const oneLine = value.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(oneLine) ? oneLine : `=?UTF-8?B?${Buffer.from(oneLine).toString('base64')}?=`;
}

export function readableMessage(from: string, message: MailMessage, date: Date): string {
  return [
    `From: ${headerValue(from)}`,
    `To: ${headerValue(message.to)}`,
    `Subject: ${headerValue(message.subject)}`,
    `Date: ${date.toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    message.text.replace(/\r\n/g, '\n'),
    '',
  ].join('\n');
}

export function createOutboxMailer(options: { dir: string; from: string; log: MailLog }): Mailer {
  return {
    kind: 'outbox',
    async send(message: MailMessage) {
      await mkdir(options.dir, { recursive: true });
      const now = new Date();
      const stamp = now.toISOString().replace(/[:.]/g, '-');
      const file = join(options.dir, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, readableMessage(options.from, message, now), { mode: 0o600 });
      const fields: Record<string, string> = { to: message.to, subject: message.subject, file };
      if (message.link) fields.link = message.link;
      if (message.requestId) fields.reqId = message.requestId;
      options.log.info(fields, 'mail written to the outbox (SMTP_URL is not set)');
    },
    async close() {},
  };
}
