package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisIssuerOptionsTest {

    private final RedisIssuerOptions valid = new RedisIssuerOptions()
            .highWaterMark(new FileTokenHighWaterMark(Path.of("target/tmp/options-test.mark")));

    @Test
    void invalidOptionsAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> new RedisIssuerOptions().validate()).hasMessageContaining("'highWaterMark'");
        assertThatThrownBy(() -> valid.uri("not a uri").validate()).hasMessageContaining("'uri'");
        assertThatThrownBy(() -> valid.uri("redis://127.0.0.1:6379").keyPrefix("").validate()).hasMessageContaining("'keyPrefix'");
        assertThatThrownBy(() -> valid.keyPrefix("p:").commandTimeout(Duration.ZERO).validate())
                .hasMessageContaining("'commandTimeout'");
        assertThatThrownBy(() -> valid.commandTimeout(Duration.ofSeconds(1)).tokenBlock(0).validate())
                .hasMessageContaining("'tokenBlock'");
    }
}
