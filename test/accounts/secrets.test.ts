// Keys and tokens: prefix plus 32 random bytes, SHA-256 at rest, constant-time comparison of any lengths.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  API_KEY_PREFIX,
  equalDigests,
  equalSecrets,
  generateSecret,
  hashSecret,
  looksLikeApiKey,
} from '../../src/accounts/secrets.js';

test('API keys are fd_live_ plus 32 random bytes in base64url', () => {
  const keys = new Set(Array.from({ length: 200 }, () => generateSecret(API_KEY_PREFIX)));
  assert.equal(keys.size, 200);
  for (const key of keys) {
    assert.match(key, /^fd_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(key.slice(8), 'base64url').length, 32);
    assert.ok(looksLikeApiKey(key));
  }
  for (const bad of [
    '',
    'fd_live_',
    'fd_test_' + 'A'.repeat(43),
    'fd_live_' + 'A'.repeat(42),
    'fd_live_' + '!'.repeat(43),
  ])
    assert.equal(looksLikeApiKey(bad), false, bad);
});

test('secrets are stored as SHA-256 hex and compared in constant time', () => {
  assert.equal(hashSecret('abc'), createHash('sha256').update('abc').digest('hex'));
  assert.equal(equalSecrets('same', 'same'), true);
  assert.equal(equalSecrets('same', 'Same'), false);
  assert.equal(equalSecrets('short', 'a much longer value'), false, 'different lengths do not throw');
  assert.equal(equalSecrets('', ''), true);
  const digest = hashSecret('key');
  assert.equal(equalDigests(digest, hashSecret('key')), true);
  assert.equal(equalDigests(digest, hashSecret('other key')), false);
  assert.equal(equalDigests(digest, digest.slice(1)), false, 'different lengths do not throw');
});
