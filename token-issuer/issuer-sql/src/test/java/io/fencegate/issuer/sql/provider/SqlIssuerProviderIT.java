package io.fencegate.issuer.sql.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.spi.InvalidSettingException;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@code sql} type as a server finds it: registered, checked by key, opened on H2 alone. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqlIssuerProviderIT {

    @Test
    void theSqlTypeIsRegisteredWithItsRecord() {
        assertThat(ServiceLoader.load(IssuerProvider.class).stream().map(ServiceLoader.Provider::get))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.issuerType().name()).isEqualTo("sql");
                    assertThat(p.issuerType().settings()).isEqualTo(SqlIssuerConfig.class);
                });
    }

    @Test
    void itOpensAnIssuerThatGrantsLeases() throws Exception {
        SqlIssuerConfig settings = new SqlIssuerConfig("jdbc:h2:mem:fg_issuers_provider;DB_CLOSE_DELAY=-1", "sa", "", null, "2s");
        settings.validate();
        OpenedIssuer opened = new SqlIssuerProvider().open(settings, r -> {
            throw new AssertionError("the sql issuer owns its connections; nothing else to close");
        });
        try (var issuer = opened.issuer()) {
            assertThat(opened.description()).isEqualTo("SQL jdbc:h2:mem:fg_issuers_provider;DB_CLOSE_DELAY=-1");
            Lease lease = issuer.acquire("providers/one", Duration.ofSeconds(30), Duration.ZERO)
                    .toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow();
            assertThat(issuer.wasGranted("providers/one", lease.token()).toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void badKeysAreRefusedByName() {
        assertRefused(new SqlIssuerConfig(null, null, null, null, null), "url");
        assertRefused(new SqlIssuerConfig("postgresql://db/shop", null, null, null, null), "url");
        assertRefused(new SqlIssuerConfig("jdbc:h2:mem:x", null, null, "maybe", null), "notifications");
        assertRefused(new SqlIssuerConfig("jdbc:h2:mem:x", null, null, null, "10ms"), "statementTimeout");
    }

    private static void assertRefused(SqlIssuerConfig settings, String key) {
        assertThatThrownBy(settings::validate)
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.key()).isEqualTo(key));
    }
}
