// Whether browser tests can run: with CI=true a missing Chromium is a failing test (CI installs it), elsewhere a skip.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * The `skip` option for a browser suite: false when Chromium is there, else the reason (and under CI=true, a failing
 * test).
 */
export function browserSkip(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const reason = `no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (process.env.CI === 'true')
    test('Chromium is installed', () => assert.fail(`CI=true and ${reason}: browser tests must run in CI`));
  return reason;
}
