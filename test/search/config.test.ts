// The search, remote-mode and discovery variables: defaults, and combinations refused at start naming the variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const refuses = (env: Record<string, string>, name: string) =>
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => e instanceof ConfigError && e.message.startsWith(`${name}:`),
    `${JSON.stringify(env)} → ${name}`,
  );

test('defaults: no search, local mode, localhost links', () => {
  const config = loadConfig({});
  assert.equal(config.SEARCH_PROVIDER, undefined);
  assert.equal(config.FETCHDOWN_API_URL, undefined);
  assert.equal(config.PUBLIC_BASE_URL, 'http://localhost:8080');
});

test('valid combinations load', () => {
  assert.equal(
    loadConfig({ SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: 'http://searx:8080' }).SEARCH_PROVIDER,
    'searxng',
  );
  assert.equal(loadConfig({ SEARCH_PROVIDER: 'brave', SEARCH_API_KEY: 'k' }).SEARCH_API_KEY, 'k');
  assert.equal(loadConfig({ FETCHDOWN_API_URL: 'https://api.example', FETCHDOWN_API_KEY: 'k' }).FETCHDOWN_API_KEY, 'k');
});

test('incomplete or unknown settings name the variable to fix', () => {
  refuses({ SEARCH_PROVIDER: 'brave' }, 'SEARCH_API_KEY');
  refuses({ SEARCH_PROVIDER: 'searxng' }, 'SEARCH_BASE_URL');
  refuses({ SEARCH_PROVIDER: 'google' }, 'SEARCH_PROVIDER');
  refuses({ SEARCH_BASE_URL: 'http://searx:8080' }, 'SEARCH_PROVIDER');
  refuses({ SEARCH_PROVIDER: 'searxng', SEARCH_BASE_URL: 'searx:8080' }, 'SEARCH_BASE_URL');
  refuses({ FETCHDOWN_API_URL: 'https://api.example' }, 'FETCHDOWN_API_KEY');
  refuses({ FETCHDOWN_API_KEY: 'k' }, 'FETCHDOWN_API_URL');
  refuses({ PUBLIC_BASE_URL: 'fetchdown.example' }, 'PUBLIC_BASE_URL');
});

test('a caller default applies only when the variable is unset', () => {
  assert.equal(loadConfig({}, { DATA_DIR: '/srv/data' }).DATA_DIR, '/srv/data');
  assert.equal(loadConfig({ DATA_DIR: '/mine' }, { DATA_DIR: '/srv/data' }).DATA_DIR, '/mine');
});
