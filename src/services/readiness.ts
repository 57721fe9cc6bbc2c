// Readiness: can this process reach what it needs (account database, cache)? Each check is bounded in time, so a
// hung dependency makes /ready answer 503 quickly instead of hanging the load balancer's probe.

export interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; ms: number; detail?: string }>;
}

const CHECK_TIMEOUT_MS = 2000;

async function check(ping: () => Promise<void>): Promise<{ ok: boolean; ms: number; detail?: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([ping(), timeout]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      ok: false,
      ms: Math.round(performance.now() - started),
      detail: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(deps: Record<string, { ping(): Promise<void> }>): Promise<Readiness> {
  const names = Object.keys(deps);
  const results = await Promise.all(names.map((name) => check(() => deps[name]!.ping())));
  const checks = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
  return { ready: results.every((r) => r.ok), checks };
}
