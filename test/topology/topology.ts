// A whole deployment as docs/operations.md ("Production") describes it: N API processes (dist/main.js) sharing one
// Postgres and one Redis, nginx in front. Processes can be stopped gracefully, killed, and started again on their port.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, signal } from './children.js';
import { startApi, startNginx, tempDir, type ApiProcess, type Nginx } from './stack.js';

export interface Topology {
  /** The load balancer: every request of the tests goes here. */
  lb: string;
  nginx: Nginx;
  apis: ApiProcess[];
  /** The account database, for setting up plans and reading the ledger. */
  db: pg.Pool;
  /** SIGTERM process i, wait for it to exit, start it again on its port and wait until it is ready. */
  restart(i: number): Promise<{ exit: string }>;
  /** SIGKILL process i and start it again once it is gone; resolves with when it was seen gone (epoch ms). */
  kill9(i: number): Promise<{ goneAt: number }>;
  close(): Promise<void>;
}

export async function startTopology(options: {
  processes: number;
  env: Record<string, string>;
  /** nginx's access log buffered, as production runs it (startNginx). */
  bufferedLog?: boolean;
}): Promise<Topology> {
  const dir = tempDir('api');
  const ports = await Promise.all(Array.from({ length: options.processes }, () => freePort()));
  const start = (i: number) => startApi(ports[i]!, options.env, join(dir, `p${i}`));
  // The first process runs the migrations alone; the others then start together.
  const apis: ApiProcess[] = [await start(0)];
  apis.push(...(await Promise.all(ports.slice(1).map((_, i) => start(i + 1)))));
  const nginx = await startNginx(ports, options.bufferedLog);
  const db = new pg.Pool({ connectionString: options.env.DATABASE_URL, max: 2 });
  db.on('error', () => undefined); // the Postgres-restart test cuts these connections too
  return {
    lb: nginx.base,
    nginx,
    apis,
    db,
    async restart(i) {
      const old = apis[i]!;
      signal(old.child, 'SIGTERM');
      const exit = await old.child.exited;
      apis[i] = await start(i);
      return { exit };
    },
    async kill9(i) {
      const old = apis[i]!;
      signal(old.child, 'SIGKILL');
      await old.child.exited;
      const goneAt = Date.now();
      apis[i] = await start(i);
      return { goneAt };
    },
    async close() {
      for (const api of apis) signal(api.child, 'SIGKILL');
      signal(nginx.child, 'SIGKILL');
      await Promise.all([...apis.map((a) => a.child.exited), nginx.child.exited]);
      await db.end().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** JSON over the load balancer. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

let accounts = 0;

/** What newAccount needs of a database: pg's query, or another database's (bench/paid.ts's SQLite) in its shape. */
export interface Queryable {
  query<R extends object>(text: string, values: unknown[]): Promise<{ rows: R[] }>;
}

/** A new account through the load balancer (or any base URL); `plan` set in the database (as billing would). */
export async function newAccount(
  topology: { lb: string; db: Queryable },
  plan?: string,
): Promise<{ id: number; apiKey: string; keyId: number; email: string }> {
  const email = `topology-${process.pid}-${Date.now()}-${accounts++}@example.com`;
  const res = await call(topology.lb, 'POST', '/account/signup', { email });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  const row = await topology.db.query<{ id: number }>('select id from accounts where email = $1', [email]);
  const id = row.rows[0]!.id;
  if (plan) await topology.db.query('update accounts set plan = $1 where id = $2', [plan, id]);
  return { id, apiKey: res.body.api_key, keyId: res.body.key_id, email };
}

/** The accounts' fetch rows in the ledger: ok (served, charged) and the rest. */
export async function ledgerRows(
  topology: Topology,
  accountIds: number[],
): Promise<{ ok: number; other: number; credits: number }> {
  const { rows } = await topology.db.query<{ ok: string; other: string; millis: string | null }>(
    `select count(*) filter (where status = 'ok') as ok, count(*) filter (where status <> 'ok') as other, sum(credits_millis) as millis
       from ledger where account_id = any($1) and operation = 'fetch'`,
    [accountIds],
  );
  return { ok: Number(rows[0]!.ok), other: Number(rows[0]!.other), credits: Number(rows[0]!.millis ?? 0) / 1000 };
}

/**
 * Waits until the accounts hold no credit lease (their holders returned them, or a dead holder's expired and was
 * reclaimed), then says, per account, what its row shows used and what its ledger charged (millicredits).
 */
export async function settledMoney(
  topology: Pick<Topology, 'db'>,
  accountIds: number[],
  limitMs = 30_000,
): Promise<{ used: number[]; ledger: number[] }> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const { rows } = await topology.db.query<{ n: string }>(
      'select count(*) as n from credit_leases where account_id = any($1)',
      [accountIds],
    );
    if (Number(rows[0]!.n) === 0) break;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.n} credit leases still held after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const used = await Promise.all(
    accountIds.map(async (id) => {
      // The topology's accounts buy nothing: what they used is their allowance used.
      const { rows } = await topology.db.query<{ allowance_used_millis: string }>(
        'select allowance_used_millis from accounts where id = $1',
        [id],
      );
      return Number(rows[0]!.allowance_used_millis);
    }),
  );
  const ledger = await Promise.all(
    accountIds.map(async (id) => {
      const { rows } = await topology.db.query<{ millis: string | null }>(
        'select sum(credits_millis) as millis from ledger where account_id = $1',
        [id],
      );
      return Number(rows[0]!.millis ?? 0);
    }),
  );
  return { used, ledger };
}
