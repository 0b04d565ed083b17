package io.fencegate.issuer.redis.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.spi.InvalidSettingException;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The {@code redis} type as a server finds it, and the keys it refuses before opening anything. */
class RedisIssuerProviderTest {

    @Test
    void theRedisTypeIsRegisteredWithItsRecord() {
        assertThat(ServiceLoader.load(IssuerProvider.class).stream().map(ServiceLoader.Provider::get))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.issuerType().name()).isEqualTo("redis");
                    assertThat(p.issuerType().settings()).isEqualTo(RedisIssuerConfig.class);
                });
    }

    @Test
    void exactlyOneHighWaterMarkIsRequired() {
        assertRefused(new RedisIssuerConfig("redis://127.0.0.1:6379", null, null, null, null, null), "highWaterMarkFile");
        assertRefused(new RedisIssuerConfig("redis://127.0.0.1:6379", null, "/m", "jdbc:h2:mem:m", null, null),
                "highWaterMarkFile");
        assertRefused(new RedisIssuerConfig("redis://127.0.0.1:6379", null, null, "postgres://db/marks", null, null),
                "highWaterMarkUrl");
        assertRefused(new RedisIssuerConfig(" ", null, "/m", null, null, null), "uri");
        new RedisIssuerConfig("redis://127.0.0.1:6379", null, "/m", null, null, null).validate();
    }

    private static void assertRefused(RedisIssuerConfig settings, String key) {
        assertThatThrownBy(settings::validate)
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.key()).isEqualTo(key));
    }
}
