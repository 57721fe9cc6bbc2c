// The e-mails the accounts service sends: a new API key, and a sign-in link.
import type { MailMessage } from '../mail/types.js';

export function apiKeyMessage(to: string, apiKey: string, publicBaseUrl: string): MailMessage {
  return {
    to,
    subject: 'Your Fetchdown API key',
    text: [
      'Welcome to Fetchdown.',
      '',
      'Your API key (keep it secret; it is shown only in this e-mail and in the sign-up response):',
      '',
      `    ${apiKey}`,
      '',
      'Send it as the X-Service-Key header:',
      '',
      `    curl -s ${publicBaseUrl}/fetch -H 'X-Service-Key: ${apiKey}' -H 'content-type: ` +
        `application/json' -d '{"url": "https://example.com/"}'`,
      '',
      `Manage keys and usage at ${publicBaseUrl}/dashboard (sign in with this address).`,
      '',
      'If you did not sign up, ignore this message.',
    ].join('\n'),
  };
}

export function signInMessage(to: string, link: string, minutes: number): MailMessage {
  return {
    to,
    subject: 'Sign in to Fetchdown',
    text: [
      'Someone (hopefully you) asked to sign in to Fetchdown with this address.',
      '',
      `Open this link within ${minutes} minutes to sign in. It works once:`,
      '',
      link,
      '',
      'If you already had an account and tried to sign up again: no new key was created; sign in to manage your keys.',
      'If it was not you, ignore this message.',
    ].join('\n'),
    link,
  };
}
