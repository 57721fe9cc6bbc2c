// The process metrics' event-loop lag: sampled from the first piece of work until none has come for EVENT_LOOP_IDLE_MS,
// so an idle server is not woken every 10 ms (its timer is mocked here; the histogram's own sampling is real).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { EVENT_LOOP_IDLE_MS, registerProcessMetrics } from '../../src/metrics/process.js';

/** Long enough for the 10 ms sampling to record a few delays. */
const SAMPLING_MS = 60;

test('the event-loop lag is sampled from the first request until requests stop', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const registry = new Registry();
  const { noteWork } = registerProcessMetrics(registry);
  /** The lag's p99 since the last scrape, and whether the scrape found the process metrics beside it. */
  const scrape = async () => {
    const text = await registry.metrics();
    assert.match(text, /^process_cpu_seconds_total /m);
    return Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)![1]);
  };

  await sleep(SAMPLING_MS);
  assert.equal(await scrape(), 0, 'no work yet: nothing sampled');
  noteWork();
  await sleep(SAMPLING_MS);
  assert.ok((await scrape()) > 0, 'sampled once there is work');

  t.mock.timers.tick(EVENT_LOOP_IDLE_MS); // the check finds work since it started: sampling goes on
  await sleep(SAMPLING_MS);
  assert.ok((await scrape()) > 0, 'still sampled after the first check');

  t.mock.timers.tick(EVENT_LOOP_IDLE_MS); // nothing since the last check: sampling stops
  await scrape();
  await sleep(SAMPLING_MS);
  assert.equal(await scrape(), 0, 'no work for a whole check: nothing sampled');

  noteWork(); // and starts again with the next request
  await sleep(SAMPLING_MS);
  assert.ok((await scrape()) > 0, 'sampled again');
  t.mock.timers.tick(2 * EVENT_LOOP_IDLE_MS);
});
