package io.fencegate.issuer.sql;

import io.fencegate.testing.DatabaseServer;
import io.fencegate.testing.MariaDbServer;
import java.nio.file.Path;

/** {@link SqlBackendRestartContract} on a MariaDB server of its own, killed and started again. */
class MariaDbBackendRestartIT extends SqlBackendRestartContract {
    @Override
    DatabaseServer start(Path dir) throws Exception {
        return MariaDbServer.start(dir);
    }
}
