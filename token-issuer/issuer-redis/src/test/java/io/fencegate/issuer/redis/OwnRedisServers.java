package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test on redis-servers of its own (never the shared one), each in a folder of the test's
 * {@link #dir}: after each test the issuers it registered in {@link #issuers} are closed, then every
 * server it started with {@link #server} is killed and checked gone.
 */
abstract class OwnRedisServers {
    static final String PREFIX = "fencegate-test:";

    @TempDir
    Path dir;

    final List<RedisLeaseIssuer> issuers = new ArrayList<>();
    private final List<RedisServer> servers = new ArrayList<>();

    /** A redis-server in {@code dir/name}, without persistence but for {@code args}. */
    RedisServer server(String name, String... args) throws IOException, InterruptedException {
        RedisServer server = RedisServer.start(dir.resolve(name), args);
        servers.add(server);
        return server;
    }

    /** A server the test started itself (e.g. with another environment): killed after the test as well. */
    void registerServer(RedisServer server) {
        servers.add(server);
    }

    /** An issuer on {@code server} (1 s command timeout) with the file mark the test's issuers share; closed after the test. */
    RedisLeaseIssuer newIssuer(RedisServer server) throws IOException {
        Files.createDirectories(dir.resolve("marks"));
        RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(PREFIX)
                .commandTimeout(Duration.ofSeconds(1))
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("marks/tokens.mark"))));
        issuers.add(issuer);
        return issuer;
    }

    @AfterEach
    void stopOwnRedisServers() throws Exception {
        issuers.forEach(RedisLeaseIssuer::close);
        for (RedisServer server : servers) {
            server.kill();
            assertThat(server.isAlive()).isFalse();
        }
    }
}
