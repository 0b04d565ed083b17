package io.fencegate.issuer.redis;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.BackendRestartContract;
import io.fencegate.testing.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read leases and permits held across a kill and restart of redis-server ({@link BackendRestartContract}),
 * on a server of this test's own with an append-only file, so the leases' keys come back from it: the
 * issuer must treat them as lost (their tokens are at or below the new run's floor) and never let a
 * writer in beside one it still answers as live.
 */
class RedisBackendRestartIT extends BackendRestartContract {

    @TempDir
    Path dir;
    private RedisServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = RedisServer.startWithAof(dir.resolve("redis"));
        Files.createDirectories(dir.resolve("marks"));
    }

    @AfterEach
    void stopServer() throws Exception {
        closeSuiteIssuers(); // while the server is up: closed after it, each issuer waits out its release timeout
        server.kill();
    }

    /** A redis-server restarts from its AOF in well under a second: the writer after it waits out 5 s, not 20. */
    @Override
    protected Duration heldTtl() {
        return Duration.ofSeconds(5);
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(OwnRedisServers.PREFIX)
                .commandTimeout(Duration.ofSeconds(2))
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("marks/tokens.mark"))));
    }

    @Override
    protected void restartBackend() throws Exception {
        server.kill();
        server.startAgain();
    }
}
