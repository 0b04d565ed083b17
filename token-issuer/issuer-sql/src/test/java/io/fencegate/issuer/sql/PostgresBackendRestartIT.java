package io.fencegate.issuer.sql;

import io.fencegate.testing.DatabaseServer;
import io.fencegate.testing.PostgresServer;
import java.nio.file.Path;

/** {@link SqlBackendRestartContract} on a PostgreSQL server of its own, crashed with {@code pg_ctl -m immediate stop}. */
class PostgresBackendRestartIT extends SqlBackendRestartContract {
    @Override
    DatabaseServer start(Path dir) throws Exception {
        return PostgresServer.start(dir);
    }
}
