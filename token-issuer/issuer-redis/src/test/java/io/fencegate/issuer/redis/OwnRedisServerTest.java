package io.fencegate.issuer.redis;

import io.fencegate.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test on one redis-server of its own per test, with a plain connection to look at its keys. */
abstract class OwnRedisServerTest extends OwnRedisServers {
    RedisServer server;
    StatefulRedisConnection<String, String> redis;
    private RedisClient client;

    @BeforeEach
    void startOwnRedis() throws Exception {
        server = server("redis");
        client = RedisClient.create(server.uri());
        redis = client.connect();
    }

    @AfterEach
    void closeConnection() {
        redis.close();
        client.shutdown();
    }
}
