package io.fencegate.issuer.redis.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.spi.InvalidSettingException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code type: redis} with a mark file of its own on a key prefix another mark covers: the gateway
 * does not start, and the message names the setting, the key Redis keeps the identity in and what
 * to do. On the shared Redis, under a prefix of its own (its keys deleted at the end).
 */
@Timeout(60)
class RedisIssuerForeignMarkIT {
    private static final String URI = "redis://127.0.0.1:6379";
    private final String prefix = "fencegate-test-" + UUID.randomUUID() + ":";
    private final List<AutoCloseable> opened = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        RedisClient client = RedisClient.create(URI);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            List<String> keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown();
        }
    }

    private OpenedIssuer open(String markFile) {
        OpenedIssuer issuer = new RedisIssuerConfig(URI, prefix, markFile, null, null, null).open(opened::add);
        opened.add(issuer.issuer());
        return issuer;
    }

    @Test
    void aGatewayBringingAnotherMarkFileDoesNotStartAndSaysWhatToDo() {
        open(dir.resolve("host-a/tokens.mark").toString());
        open(dir.resolve("host-a/tokens.mark").toString()); // the same mark: fine
        assertThatThrownBy(() -> open(dir.resolve("host-b/tokens.mark").toString()))
                .isInstanceOf(InvalidSettingException.class)
                .satisfies(e -> assertThat(((InvalidSettingException) e).key()).isEqualTo("highWaterMarkFile"))
                .hasMessageContaining("key prefix '" + prefix + "': its token counter is covered by another high-water mark")
                .hasMessageContaining("delete the key " + prefix + "token-mark");
    }
}
