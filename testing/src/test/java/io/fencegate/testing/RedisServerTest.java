package io.fencegate.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A redis-server of the test's own: up on its port, empty after a restart without persistence, gone after a kill. */
@Timeout(60)
class RedisServerTest {

    @Test
    void startsAnswersRestartsEmptyOnTheSamePortAndIsGoneAfterAKill(@TempDir Path dir) throws Exception {
        try (RedisServer redis = RedisServer.start(dir)) {
            assertThat(redis.port()).isBetween(20_000, 32_000);
            assertThat(redis.command("SET k v")).isEqualTo("+OK");
            long firstPid = redis.pid();
            redis.kill();
            assertThat(redis.isAlive()).isFalse();
            assertThat(redis.command("PING")).as("nothing listens after the kill").isNull();
            redis.startAgain();
            assertThat(redis.pid()).isNotEqualTo(firstPid);
            assertThat(redis.command("EXISTS k")).as("no persistence: empty again").isEqualTo(":0");
        }
    }

    @Test
    void anAofServerComesBackWithItsDataAfterKill9(@TempDir Path dir) throws Exception {
        try (RedisServer redis = RedisServer.startWithAof(dir)) {
            assertThat(redis.command("SET k v")).isEqualTo("+OK");
            assertThat(redis.command("BGREWRITEAOF")).startsWith("+");
            Thread.sleep(1500); // appendfsync everysec: past one fsync
            redis.kill9AndRestartFromAof();
            assertThat(redis.command("GET k")).isEqualTo("$1");
        }
    }
}
