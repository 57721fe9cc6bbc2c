// The two mailers: SMTP delivers to a real server on 127.0.0.1; the outbox writes .eml files and logs only the link.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { simpleParser } from 'mailparser';
import { createMailer } from '../../src/mail/index.js';
import { createOutboxMailer } from '../../src/mail/outbox.js';
import { startSmtpServer } from '../helpers/smtp.js';

function captureLog() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const push = (fields: object, message: string) => lines.push({ fields: fields as Record<string, unknown>, message });
  return { lines, log: { info: push, warn: push } };
}

test('SMTP_URL selects SMTP: the message arrives with sender, recipient, subject and text', async (t) => {
  const smtp = await startSmtpServer();
  t.after(() => smtp.close());
  const { log } = captureLog();
  const mailer = createMailer(
    { SMTP_URL: smtp.url, MAIL_FROM: 'Fetchdown <hello@fetchdown.test>', DATA_DIR: '/nonexistent' },
    log,
  );
  t.after(() => mailer.close());
  assert.equal(mailer.kind, 'smtp');
  await mailer.send({ to: 'ada@example.com', subject: 'Hello', text: 'Line one\nhttps://example.com/x?token=abc' });
  const mail = await smtp.waitFor('ada@example.com');
  assert.equal(mail.subject, 'Hello');
  assert.equal(mail.from?.value[0]?.address, 'hello@fetchdown.test');
  assert.equal(mail.text?.trim(), 'Line one\nhttps://example.com/x?token=abc');
});

test('without SMTP_URL every message is an .eml file in DATA_DIR/outbox, and only the sign-in link is logged', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-outbox-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const { lines, log } = captureLog();
  const mailer = createMailer(
    { SMTP_URL: undefined, MAIL_FROM: 'Fetchdown <no-reply@localhost>', DATA_DIR: dataDir },
    log,
  );
  assert.equal(mailer.kind, 'outbox');
  await mailer.send({
    to: 'ada@example.com',
    subject: 'Sign in',
    text: 'Open https://x.test/auth/verify?token=T0KEN',
    link: 'https://x.test/auth/verify?token=T0KEN',
  });
  const key = `fd_live_${'K3y='.repeat(20)}`;
  await mailer.send({
    to: 'ada@example.com',
    subject: 'Your key',
    text: `Your key: ${key}\nKeep it – it is shown once`,
  });
  const files = readdirSync(join(dataDir, 'outbox')).sort();
  assert.equal(files.length, 2);
  assert.ok(files.every((f) => f.endsWith('.eml')));
  const mode = statSync(join(dataDir, 'outbox', files[0]!)).mode & 0o777;
  assert.equal(mode, 0o600, 'readable by the service user only');
  const parsed = await Promise.all(files.map((f) => simpleParser(readFileSync(join(dataDir, 'outbox', f)))));
  assert.deepEqual(parsed.map((m) => m.subject).sort(), ['Sign in', 'Your key']);
  // A person copies the key and the link out of the file itself: no soft line breaks, no =3D.
  const texts = files.map((f) => readFileSync(join(dataDir, 'outbox', f), 'utf8'));
  assert.ok(
    texts.some((text) => text.includes(`Your key: ${key}\n`)),
    texts.join('\n---\n'),
  );
  assert.ok(texts.some((text) => text.includes('Open https://x.test/auth/verify?token=T0KEN')));
  assert.ok(parsed.some((m) => m.text?.includes('Keep it – it is shown once')));
  assert.equal(lines.length, 2);
  assert.equal(lines[0]!.fields.link, 'https://x.test/auth/verify?token=T0KEN');
  assert.equal(lines[1]!.fields.link, undefined);
  assert.ok(!JSON.stringify(lines).includes('K3y='), 'an API key is never logged');
});

test('a fresh install signs in end to end through the outbox', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-outbox-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const { lines, log } = captureLog();
  const mailer = createOutboxMailer({ dir: join(dataDir, 'outbox'), from: 'x@localhost', log });
  await mailer.send({
    to: 'b@example.com',
    subject: 's',
    text: 't',
    link: 'http://localhost:8080/auth/verify?token=abc',
  });
  assert.match(lines[0]!.message, /outbox/);
  assert.match(String(lines[0]!.fields.file), /outbox\/.+\.eml$/);
});
