package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.config.Defaults;
import io.fencegate.gateway.config.GatewayConfig;
import io.fencegate.issuer.redis.provider.RedisIssuerConfig;
import io.fencegate.issuer.sql.provider.SqlIssuerConfig;
import io.fencegate.issuer.zookeeper.provider.EmbeddedZooKeeperIssuerConfig;
import io.fencegate.issuer.zookeeper.provider.ZooKeeperIssuerConfig;
import io.fencegate.store.spi.StoreSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The configs the archive ships in conf/ load with the gateway's own ConfigLoader and pass validation. */
class ShippedConfigsTest {
    private static final Path CONF = Path.of("src/main/dist/conf");

    private static GatewayConfig load(String file) {
        GatewayConfig config = ConfigLoader.load(CONF.resolve(file), Map.of());
        config.issuer().validate();
        config.stores().values().forEach(StoreSettings::validate);
        Defaults.options(config).validate();
        return config;
    }

    @Test
    void defaultConfigIsTheEmbeddedDefaultWrittenOut() throws Exception {
        GatewayConfig shipped = load("fencegate.yaml");
        GatewayConfig embedded = Defaults.embedded(Path.of("data"));
        assertThat(shipped.issuer()).isInstanceOf(EmbeddedZooKeeperIssuerConfig.class);
        assertThat(((EmbeddedZooKeeperIssuerConfig) shipped.issuer()).dataDir()).isEqualTo("data/zookeeper");
        assertThat(shipped.stores()).containsOnlyKeys(embedded.stores().keySet());
        shipped.stores().forEach((name, settings) ->
                assertThat(settings.getClass()).as(name).isEqualTo(embedded.stores().get(name).getClass()));
        assertThat(shipped.server().host()).isEqualTo("127.0.0.1");
        assertThat(shipped.server().port()).isEqualTo(8080);
    }

    @Test
    void redisMariaDbExampleLoadsWithASharedDatabaseMark() {
        GatewayConfig config = load("examples/redis-mariadb.yaml");
        assertThat(config.issuer()).isInstanceOfSatisfying(RedisIssuerConfig.class, redis -> {
            assertThat(redis.highWaterMarkUrl()).startsWith("jdbc:mariadb:");
            assertThat(redis.highWaterMarkFile()).isNull();
        });
        assertThat(config.stores()).containsOnlyKeys("orders");
        assertThat(config.auth().keys()).isNotEmpty();
    }

    @Test
    void zooKeeperPostgresExampleLoadsWithAnEnsemble() {
        GatewayConfig config = load("examples/zookeeper-postgres.yaml");
        assertThat(config.issuer()).isInstanceOfSatisfying(ZooKeeperIssuerConfig.class,
                zk -> assertThat(zk.connectString().split(",")).hasSize(3));
        assertThat(config.stores()).containsOnlyKeys("orders");
        assertThat(config.auth().keys()).isNotEmpty();
    }

    @Test
    void postgresOnlyExampleLoadsWithTheSqlIssuer() {
        GatewayConfig config = load("examples/postgres-only.yaml");
        assertThat(config.issuer()).isInstanceOfSatisfying(SqlIssuerConfig.class,
                sql -> assertThat(sql.url()).startsWith("jdbc:postgresql:"));
        assertThat(config.stores()).containsOnlyKeys("orders");
        assertThat(config.auth().keys()).isNotEmpty();
    }

    @Test
    void environmentOverridesApplyToTheShippedConfig() {
        GatewayConfig config = ConfigLoader.load(CONF.resolve("fencegate.yaml"),
                Map.of("FENCEGATE_SERVER_PORT", "9090", "FENCEGATE_ISSUER_DATADIR", "/var/lib/fencegate/zookeeper"));
        assertThat(config.server().port()).isEqualTo(9090);
        assertThat(((EmbeddedZooKeeperIssuerConfig) config.issuer()).dataDir()).isEqualTo("/var/lib/fencegate/zookeeper");
    }
}
