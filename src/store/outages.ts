// A lost database as an answer rather than a crash or a 500: every connection, query and transaction step of the
// Postgres store that fails because the database cannot be reached throws 503 store_unavailable, with the driver's
// error as its cause; a query that fails on a text value Postgres cannot store (NUL) throws the caller's 400.
// Translated here, where the store meets the driver, so every caller (the routes, each URL of a batch, the MCP tools,
// a top-up in the middle of a fetch) answers alike.
import type { DatabaseConnection, Dialect, Driver } from 'kysely';
import { isStoreUnavailable, isUnstorableText, storeUnavailable, unstorableText } from './unavailable.js';

async function translating<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isUnstorableText(error)) throw unstorableText(error);
    throw isStoreUnavailable(error) ? storeUnavailable(error) : error;
  }
}

/** `dialect` with its driver's outages translated; everything else (SQL, adapters, introspection) is its own. */
export function translateOutages(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => translateDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}

function translateDriver(driver: Driver): Driver {
  // The driver's own calls get its own connection objects back (node-postgres releases them through a private method).
  const own = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (connection: DatabaseConnection) => own.get(connection) ?? connection;
  return {
    init: () => translating(() => driver.init()),
    async acquireConnection() {
      const connection = await translating(() => driver.acquireConnection());
      const translated: DatabaseConnection = {
        executeQuery: (query) => translating(() => connection.executeQuery(query)),
        streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
      };
      own.set(translated, connection);
      return translated;
    },
    beginTransaction: (connection, settings) =>
      translating(() => driver.beginTransaction(unwrap(connection), settings)),
    commitTransaction: (connection) => translating(() => driver.commitTransaction(unwrap(connection))),
    rollbackTransaction: (connection) => translating(() => driver.rollbackTransaction(unwrap(connection))),
    savepoint: driver.savepoint
      ? (connection, name, compile) => translating(() => driver.savepoint!(unwrap(connection), name, compile))
      : undefined,
    rollbackToSavepoint: driver.rollbackToSavepoint
      ? (connection, name, compile) => translating(() => driver.rollbackToSavepoint!(unwrap(connection), name, compile))
      : undefined,
    releaseSavepoint: driver.releaseSavepoint
      ? (connection, name, compile) => translating(() => driver.releaseSavepoint!(unwrap(connection), name, compile))
      : undefined,
    releaseConnection: (connection) => driver.releaseConnection(unwrap(connection)),
    destroy: () => driver.destroy(),
  };
}
