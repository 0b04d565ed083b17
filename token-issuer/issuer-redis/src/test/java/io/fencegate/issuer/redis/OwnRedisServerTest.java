package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test on a redis-server of its own per test (never the shared one), with a plain connection to
 * look at its keys; the issuers a test registers in {@link #issuers} are closed before the server
 * is killed.
 */
abstract class OwnRedisServerTest {
    static final String PREFIX = "fencegate-test:";

    @TempDir
    Path dir;

    RedisServer server;
    StatefulRedisConnection<String, String> redis;
    final List<RedisLeaseIssuer> issuers = new ArrayList<>();
    private RedisClient client;

    @BeforeEach
    void startOwnRedis() throws Exception {
        server = RedisServer.start(dir.resolve("redis"));
        client = RedisClient.create(server.uri());
        redis = client.connect();
    }

    @AfterEach
    void stopOwnRedis() throws Exception {
        issuers.forEach(RedisLeaseIssuer::close);
        redis.close();
        client.shutdown();
        server.kill();
        assertThat(server.isAlive()).isFalse();
    }
}
