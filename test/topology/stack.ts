// The parts of the topology, each on 127.0.0.1 and owned by the test: a Redis of its own, a Postgres cluster of its
// own (for restarting it), the API processes from the compiled build, and nginx with deploy/nginx's configuration.
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../helpers/mcp-client.js';
import { freePort, signal, startChild, waitUntil, type Child } from './children.js';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/** Why the topology cannot run here (no nginx, no redis-server), or null. */
export function missingTools(): string | null {
  if (!existsSync(NGINX)) return `nginx is not installed at ${NGINX} (apt-get install -y nginx)`;
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'redis-server is not installed (apt-get install -y redis-server)';
  }
  return null;
}

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `fetchdown-topology-${tag}-`));
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A redis-server of the test's own on a free port: no persistence, so a restart comes back empty. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: Child | null = null;
  const start = async () => {
    child = startChild('redis-server', 'redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    const started = child;
    await waitUntil(
      started,
      'redis-server accepting connections',
      async () => /Ready to accept connections/.test(started.output()),
      30_000,
    );
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      if (!child) return;
      signal(child, 'SIGTERM');
      await child.exited;
      child = null;
    },
  };
}

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** The server binaries of the newest installed PostgreSQL (Debian puts them outside PATH), or null. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

/** Postgres refuses to run as root: as root, its commands run as the `postgres` user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  return { uid, gid };
}

/** A throwaway cluster (initdb in a temp dir) on a free port, or a reason it cannot be made. */
export async function startPostgres(after: (fn: () => void) => void): Promise<PostgresServer | string> {
  const bin = postgresBin();
  if (!bin) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)';
  const user = postgresUser();
  const dir = tempDir('pg');
  after(() => rmSync(dir, { recursive: true, force: true }));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...user,
    stdio: 'pipe',
  });
  const port = await freePort();
  let child: Child | null = null;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    const args = [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=100',
    ];
    child = startChild('postgres', join(bin, 'postgres'), args, { ...user });
    const started = child;
    await waitUntil(started, 'postgres accepting connections', async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      try {
        await client.connect();
        await client.query('select 1');
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    });
  };
  await start();
  return {
    url,
    start,
    async stop() {
      if (!child) return;
      signal(child, 'SIGINT'); // fast shutdown: sessions are cut, as in a failover or a restart
      await child.exited;
      child = null;
    },
  };
}

export interface ApiProcess {
  port: number;
  child: Child;
  base: string;
}

/** One API process from the build on `port`, resolved once /ready answers 200. */
/** `root`: the checkout whose build runs (another one for a benchmark against an older commit). */
export async function startApi(
  port: number,
  env: Record<string, string>,
  dataDir: string,
  root = REPO_ROOT,
): Promise<ApiProcess> {
  mkdirSync(dataDir, { recursive: true });
  const child = startChild(`api:${port}`, process.execPath, [join(root, 'dist', 'main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitUntil(
    child,
    `the API process on port ${port} answering /ready`,
    async () => (await fetch(`${base}/ready`)).status === 200,
    90_000,
  );
  return { port, child, base };
}

export interface Nginx {
  base: string;
  child: Child;
  dir: string;
}

/**
 * Renders deploy/nginx/fetchdown.conf.template for these ports inside a minimal nginx.conf, and starts nginx.
 * `bufferedLog`: the access log written in 64 KiB blocks at most a second late, as docs/operations.md advises for
 * production (the benchmarks); the tests read it as it happens.
 */
export async function startNginx(upstreamPorts: number[], bufferedLog = false): Promise<Nginx> {
  const dir = tempDir('nginx');
  const port = await freePort();
  const servers = upstreamPorts.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n    ');
  const site = readFileSync(join(REPO_ROOT, 'deploy', 'nginx', 'fetchdown.conf.template'), 'utf8')
    .replaceAll('${FETCHDOWN_LISTEN}', `127.0.0.1:${port}`)
    .replaceAll('${FETCHDOWN_SERVERS}', servers);
  writeFileSync(join(dir, 'fetchdown.conf'), site);
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      process.getuid?.() === 0 ? 'user root;' : '',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      `  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')}`,
      // When each request started and ended, which processes it went to, and what they and the client got.
      "  log_format topology '$msec|$request_time|$upstream_addr|$upstream_status|$status|$request_method|$uri';",
      `  access_log ${join(dir, 'access.log')} topology${bufferedLog ? ' buffer=64k flush=1s' : ''};`,
      `  include ${join(dir, 'fetchdown.conf')};`,
      '}',
    ].join('\n'),
  );
  const child = startChild('nginx', NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;']);
  const base = `http://127.0.0.1:${port}`;
  await waitUntil(child, 'nginx answering /health', async () => (await fetch(`${base}/health`)).status === 200, 30_000);
  return { base, child, dir };
}

/** nginx's own error log (upstream failures and retries), for assertion messages. */
export function nginxErrors(nginx: Nginx): string {
  const file = join(nginx.dir, 'error.log');
  return existsSync(file) ? readFileSync(file, 'utf8').slice(-8000) : '';
}

export interface AccessLine {
  /** When nginx received the request and when it answered (epoch ms). */
  startedAt: number;
  endedAt: number;
  /** The processes tried, in order ("127.0.0.1:8081, 127.0.0.1:8082" after a retry). */
  upstreams: string;
  status: number;
  path: string;
}

/** nginx's access log so far, in the topology format. */
export function nginxAccess(nginx: Nginx): AccessLine[] {
  const file = join(nginx.dir, 'access.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [msec, seconds, upstreams, , status, , path] = line.split('|');
      const endedAt = Number(msec) * 1000;
      return {
        startedAt: endedAt - Number(seconds) * 1000,
        endedAt,
        upstreams: upstreams!,
        status: Number(status),
        path: path!,
      };
    });
}
