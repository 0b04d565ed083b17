package io.fencegate.issuer.sql;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.BackendRestartContract;
import io.fencegate.testing.DatabaseServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Read leases and permits held across a crash and restart of the database server
 * ({@link BackendRestartContract}), on a server of this test's own (never the shared one): their rows
 * are durable, so held leases are expected to stay valid through the issuers' reconnecting pools.
 */
abstract class SqlBackendRestartContract extends BackendRestartContract {

    private Path dir;
    private DatabaseServer server;

    abstract DatabaseServer start(Path dir) throws Exception;

    @BeforeEach
    void startServer() throws Exception {
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sql-restart");
        server = start(dir);
    }

    @AfterEach
    void stopServer() throws Exception {
        closeSuiteIssuers(); // while the server is up: closed after it, each issuer waits out its timeouts (10 s)
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            try (var all = Files.walk(dir)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return SqlLeaseIssuer.builder().jdbcUrl(server.jdbcUrl()).user(server.user()).password("").poolSize(4).build();
    }

    @Override
    protected void restartBackend() throws Exception {
        server.crashAndRestart();
    }
}
