package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.sql.provider.SqlIssuerConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code issuer: { type: sql }}: its keys bind, each bad one is refused by name, and every list of types names it. */
class SqlIssuerConfigTest {

    private static final String STORES = "stores:\n  docs: { type: files, dir: /tmp/fencegate-sql-issuer-config-test }\n";

    private static void assertRefused(String issuer, Map<String, String> env, String message) {
        assertThatThrownBy(() -> Backends.validate(ConfigLoader.parse(issuer + STORES, env)))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(message);
    }

    @Test
    void aSqlIssuerBindsItsKeysAndEnvironmentOverridesThem() {
        GatewayConfig config = ConfigLoader.parse("issuer: { type: sql, url: \"jdbc:postgresql://db:5432/shop\", user: fg,"
                + " password: pw, notifications: false, statementTimeout: 3s }\n" + STORES, Map.of());
        Backends.validate(config);
        assertThat(config.issuer()).isEqualTo(new SqlIssuerConfig("jdbc:postgresql://db:5432/shop", "fg", "pw", "false", "3s"));
        GatewayConfig overridden = ConfigLoader.parse("issuer: { type: sql, url: \"jdbc:h2:mem:x\" }\n" + STORES,
                Map.of("FENCEGATE_ISSUER_PASSWORD", "secret"));
        assertThat(((SqlIssuerConfig) overridden.issuer()).password()).isEqualTo("secret");
    }

    @Test
    void badSqlIssuerKeysAreRefusedByName() {
        assertRefused("issuer: { type: sql }\n", Map.of(), "issuer.url");
        assertRefused("issuer: { type: sql, url: \"postgresql://db/shop\" }\n", Map.of(), "issuer.url");
        assertRefused("issuer: { type: sql, url: \"jdbc:h2:mem:x\", notifications: maybe }\n", Map.of(), "issuer.notifications");
        assertRefused("issuer: { type: sql, url: \"jdbc:h2:mem:x\", statementTimeout: 10ms }\n", Map.of(), "issuer.statementTimeout");
        assertRefused("issuer: { type: sql, url: \"jdbc:h2:mem:x\", uri: \"redis://x\" }\n", Map.of(), "issuer.uri");
    }

    @Test
    void everyListOfIssuerTypesNamesSql() {
        assertThatThrownBy(() -> ConfigLoader.parse("issuer: { type: etcd }\n" + STORES, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("zookeeper, redis, sql or embedded-zookeeper");
        assertThatThrownBy(() -> Backends.validate(ConfigLoader.parse(STORES, Map.of())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("zookeeper, redis, sql or embedded-zookeeper");
    }
}
