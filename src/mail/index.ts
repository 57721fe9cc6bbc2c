// Picks the mailer from the config: SMTP when SMTP_URL is set, else the outbox under DATA_DIR.
import { join } from 'node:path';
import type { Config } from '../config.js';
import { createOutboxMailer } from './outbox.js';
import { createSmtpMailer } from './smtp.js';
import type { Mailer, MailLog } from './types.js';

export type { Mailer, MailLog, MailMessage } from './types.js';

export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'DATA_DIR'>, log: MailLog): Mailer {
  if (config.SMTP_URL) return createSmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM });
  return createOutboxMailer({ dir: join(config.DATA_DIR, 'outbox'), from: config.MAIL_FROM, log });
}
