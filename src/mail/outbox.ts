// Without SMTP, every message becomes an .eml file in DATA_DIR/outbox/ and its sign-in link is logged, so a fresh
// install works end to end. The log line carries the link only, never an API key.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer, MailLog, MailMessage } from './types.js';

export function createOutboxMailer(options: { dir: string; from: string; log: MailLog }): Mailer {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(message: MailMessage) {
      const info = await composer.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
      await mkdir(options.dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = join(options.dir, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      const fields: Record<string, string> = { to: message.to, subject: message.subject, file };
      if (message.link) fields.link = message.link;
      if (message.requestId) fields.reqId = message.requestId;
      options.log.info(fields, 'mail written to the outbox (SMTP_URL is not set)');
    },
    async close() {
      composer.close();
    },
  };
}
