// The config module: defaults, coercion, and a one-line error naming the bad variable.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { ConfigError, loadConfig, userDataDir } from '../src/config.js';

test('defaults match docs/operations.md', () => {
  const config = loadConfig({});
  assert.equal(config.PORT, 8080);
  assert.equal(config.DATA_DIR, './data');
  assert.equal(config.CACHE_TTL_SECONDS, 21600);
  assert.equal(config.FETCH_TIMEOUT_MS, 20000);
  assert.equal(config.FETCH_MAX_BYTES, 10 * 1024 * 1024);
  assert.equal(config.FETCH_MAX_REDIRECTS, 5);
  assert.equal(config.FETCH_ALLOW_PRIVATE_NETWORKS, false);
  assert.equal(config.CACHE_URL, undefined);
  assert.ok(Object.isFrozen(config));
});

test('values are coerced', () => {
  const config = loadConfig({ PORT: '9000', FETCH_ALLOW_PRIVATE_NETWORKS: '1', CACHE_URL: 'redis://127.0.0.1:6379' });
  assert.equal(config.PORT, 9000);
  assert.equal(config.FETCH_ALLOW_PRIVATE_NETWORKS, true);
  assert.equal(config.CACHE_URL, 'redis://127.0.0.1:6379');
});

for (const [name, value] of [
  ['PORT', 'eighty'],
  ['PORT', '70000'],
  ['FETCH_ALLOW_PRIVATE_NETWORKS', 'maybe'],
  ['LOG_LEVEL', 'loud'],
  ['CACHE_URL', 'http://cache'],
  ['FETCH_MAX_REDIRECTS', '-1'],
  ['MCP_DEFAULT_MAX_CHARS', '5000'],
] as const) {
  test(`a bad ${name} names the variable`, () => {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith(`${name}:`),
    );
  });
}

test('a bad choice lists the values the variable takes', () => {
  assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), {
    message: 'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent (got "loud")',
  });
});

test('the process stops with a one-line message on a bad value', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: 'abc' },
    encoding: 'utf8',
  });
  assert.equal(result.status, 1);
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.match(result.stderr, /PORT/);
});

test('the per-user data directory of an installed package follows each platform', () => {
  assert.equal(userDataDir({ XDG_DATA_HOME: '/x/share' }, 'linux', '/home/ann'), '/x/share/fetchdown');
  assert.equal(userDataDir({}, 'linux', '/home/ann'), '/home/ann/.local/share/fetchdown');
  assert.equal(
    userDataDir({ XDG_DATA_HOME: '/x/share' }, 'darwin', '/Users/ann'),
    '/Users/ann/Library/Application Support/fetchdown',
  );
  assert.equal(
    userDataDir({ LOCALAPPDATA: 'C:/Users/ann/AppData/Local' }, 'win32', 'C:/Users/ann'),
    'C:/Users/ann/AppData/Local/fetchdown',
  );
  assert.equal(loadConfig({}).MCP_DEFAULT_MAX_TOKENS, 10000);
  assert.equal(loadConfig({}).MCP_DEFAULT_MAX_CHARS, 48000);
  assert.equal(loadConfig({ MCP_DEFAULT_MAX_CHARS: '0' }).MCP_DEFAULT_MAX_CHARS, 0);
  assert.equal(loadConfig({}).NODE_ENV, 'development');
});

test('PUBLIC_BASE_URL defaults to the address served: the port and host the server listens on', () => {
  assert.equal(loadConfig({}).PUBLIC_BASE_URL, 'http://localhost:8080');
  assert.equal(loadConfig({ PORT: '8090' }).PUBLIC_BASE_URL, 'http://localhost:8090');
  assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).PUBLIC_BASE_URL, 'http://localhost:9000');
  assert.equal(loadConfig({ HOST: '10.1.2.3', PORT: '9000' }).PUBLIC_BASE_URL, 'http://10.1.2.3:9000');
  assert.equal(loadConfig({ HOST: 'fd00::5', PORT: '9000' }).PUBLIC_BASE_URL, 'http://[fd00::5]:9000');
  assert.equal(loadConfig({ PORT: '8090', PUBLIC_BASE_URL: 'https://x.example' }).PUBLIC_BASE_URL, 'https://x.example');
});

test('a wall limit for extraction below its CPU limit is refused, naming the variable', () => {
  assert.throws(() => loadConfig({ EXTRACT_TIMEOUT_MS: '5000', EXTRACT_WALL_TIMEOUT_MS: '1000' }), {
    message: /^EXTRACT_WALL_TIMEOUT_MS: at least EXTRACT_TIMEOUT_MS/,
  });
  assert.equal(
    loadConfig({ EXTRACT_TIMEOUT_MS: '5000', EXTRACT_WALL_TIMEOUT_MS: '5000' }).EXTRACT_WALL_TIMEOUT_MS,
    5000,
  );
  assert.equal(loadConfig({}).EXTRACT_WALL_TIMEOUT_MS, 0); // twice EXTRACT_TIMEOUT_MS
});
