// Concurrent calls for the same key share one in-flight promise (one upstream fetch per URL at a time).

export function createSingleFlight<T>() {
  const inflight = new Map<string, Promise<T>>();
  return {
    run(key: string, task: () => Promise<T>): Promise<T> {
      const existing = inflight.get(key);
      if (existing) return existing;
      const promise = task().finally(() => inflight.delete(key));
      inflight.set(key, promise);
      return promise;
    },
  };
}
