// Sends mail through an SMTP server (SMTP_URL, e.g. smtps://user:pass@smtp.example.com:465) with nodemailer.
import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from './types.js';

export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(options.url);
  // A pooled transport (SMTP_URL with ?pool=true) emits 'error' when an idle connection fails; unhandled, that would
  // end the process. Each send still reports its own failure.
  transport.on('error', () => undefined);
  return {
    kind: 'smtp',
    async send(message: MailMessage) {
      await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
    },
    async close() {
      transport.close();
    },
  };
}
