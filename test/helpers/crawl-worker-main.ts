// A crawl worker as a process of its own, for tests that kill one mid-crawl, with the crawl site's DNS and configured
// by its environment: on Redis a worker as `fetchdown worker` runs one (createDeps + workCrawls); on the embedded
// default the server's own reading of jobs (createDeps starts it) without the HTTP side. Says "crawl worker reading"
// once it reads jobs, and closes on SIGTERM (every ledger row written, its leases returned).
import { loadConfig } from '../../src/config.js';
import { redisOf } from '../../src/crawl/index.js';
import { createDeps } from '../../src/deps.js';
import { crawlSiteAddresses } from './crawl-api.js';

const config = loadConfig(process.env);
const deps = createDeps(config, { addresses: crawlSiteAddresses() });
if (redisOf(config)) await deps.operations.workCrawls(config.CRAWL_CONCURRENCY);
process.stdout.write('crawl worker reading\n');
process.once('SIGTERM', () => {
  void deps.close().then(() => process.exit(0));
});
