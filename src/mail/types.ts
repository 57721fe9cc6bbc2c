// Outgoing mail behind one small interface: SMTP when SMTP_URL is set, else an outbox directory of .eml files.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The sign-in link the message carries, if any: the outbox logs it so a local install works without mail. */
  link?: string;
  /** The id of the request that caused it, so the mail's log lines join that request's. */
  requestId?: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** The two log levels the mailers use (pino's signature). */
export interface MailLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}
