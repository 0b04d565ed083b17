package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.zookeeper.provider.ZooKeeperIssuerConfig;
import io.fencegate.store.jdbc.provider.JdbcStoreSettings;
import io.fencegate.store.postgres.provider.PostgresStoreSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Config parsing, environment overrides, and validation messages that name the bad key. */
class ConfigLoaderTest {
    private static final String VALID = """
            server: { host: 127.0.0.1, port: 8081, eventLoops: 3 }
            limits: { maxBodyBytes: 1024, requestTimeout: 5s, maxTtl: 10m }
            issuer: { type: zookeeper, connectString: "127.0.0.1:2181", tokenMode: cversion }
            stores:
              orders:
                type: jdbc
                url: jdbc:mariadb://127.0.0.1:3306/shop
                user: root
                rule: same-lease
                statements:
                  debit: "UPDATE accounts SET balance = balance - :amount WHERE id = :id"
              docs: { type: files, dir: /srv/docs, lock: docs-lock }
              ledger: { type: postgres, host: 127.0.0.1, port: 5432, database: shop, schema: fencegate, poolSize: 4 }
            """;

    private static void assertRefused(String yaml, Map<String, String> env, String message) {
        assertThatThrownBy(() -> {
            GatewayConfig config = ConfigLoader.parse(yaml, env);
            Defaults.options(config);
            Backends.validate(config);
        })
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(message);
    }

    @Test
    void everyBoundOnBodiesAndTemporaryDiskIsANamedLimitCheckedAtStart() {
        String limits = "limits: { maxBodyBytes: 1024, requestTimeout: 5s, maxTtl: 10m }";
        GatewayOptions o = Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { maxBodyBytes: 1024, bodyBudgetBytes: 33554432, bodyBudgetPerKeyBytes: 8388608,"
                        + " bodyIdleTimeout: 3s, bodyTimeout: 20s, tempDiskBytes: 1000000, tempDiskPerKeyBytes: 250000,"
                        + " maxInitialLineLength: 8192, maxHeaderBytes: 4096 }"), Map.of())).validate();
        assertThat(o.limits().bodyBudgetBytes()).isEqualTo(32L << 20);
        assertThat(o.limits().bodyBudgetPerKeyBytesFor(o.maxBodyBytes())).isEqualTo(8L << 20);
        assertThat(o.limits().bodyIdleTimeout()).isEqualTo(java.time.Duration.ofSeconds(3));
        assertThat(o.limits().bodyTimeout()).isEqualTo(java.time.Duration.ofSeconds(20));
        assertThat(o.limits().tempDiskPerKeyBytesFor(o.maxBodyBytes())).isEqualTo(250_000);
        assertThat(o.limits().maxInitialLineLengthFor(o.maxKeyBytes())).isEqualTo(8192);
        assertThat(o.limits().maxHeaderBytes()).isEqualTo(4096);
        assertThat(o.limits().maxTransactionItems()).as("default").isEqualTo(100);
        assertThat(o.limits().maxTransactionBytesFor(o.maxBodyBytes())).as("default: at most maxBodyBytes").isEqualTo(1024);
        GatewayOptions tx = Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { maxTransactionItems: 7, maxTransactionBytes: 512 }"), Map.of())).validate();
        assertThat(tx.limits().maxTransactionItems()).isEqualTo(7);
        assertThat(tx.limits().maxTransactionBytesFor(tx.maxBodyBytes())).isEqualTo(512);
        assertThatThrownBy(() -> Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { maxTransactionItems: 1001 }"), Map.of())).validate())
                .hasMessageStartingWith("limits.maxTransactionItems must be 1..1000");
        assertThatThrownBy(() -> Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { maxBodyBytes: 1024, maxTransactionBytes: 2048 }"), Map.of())).validate())
                .hasMessageStartingWith("limits.maxTransactionBytes must be 1..limits.maxBodyBytes");

        assertThatThrownBy(() -> Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { maxKeyBytes: 2048, maxInitialLineLength: 4096 }"), Map.of())).validate())
                .hasMessageStartingWith("limits.maxInitialLineLength 4096 cannot hold a key of limits.maxKeyBytes 2048");
        assertThat(Defaults.options(ConfigLoader.parse(VALID.replace(limits, "limits: { maxKeyBytes: 2048 }"), Map.of()))
                .validate().limits().maxInitialLineLengthFor(2048)).as("derived: room for every key percent-encoded")
                .isGreaterThanOrEqualTo(3 * 2048 + 100);
        assertThatThrownBy(() -> Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { bodyBudgetBytes: 33554432, bodyBudgetPerKeyBytes: 67108864 }"), Map.of())).validate())
                .hasMessageStartingWith("limits.bodyBudgetPerKeyBytes must be from limits.maxBodyBytes");
        assertThatThrownBy(() -> Defaults.options(ConfigLoader.parse(VALID.replace(limits,
                "limits: { bodyIdleTimeout: 30s, bodyTimeout: 10s }"), Map.of())).validate())
                .hasMessageStartingWith("limits.bodyTimeout (PT10S) must be at least limits.bodyIdleTimeout");
    }

    @Test
    void aValidConfigMapsToOptionsAndStores() {
        GatewayConfig config = ConfigLoader.parse(VALID, Map.of());
        Backends.validate(config);
        GatewayOptions options = Defaults.options(config);
        assertThat(options.port()).isEqualTo(8081);
        assertThat(options.eventLoops()).isEqualTo(3);
        assertThat(options.maxBodyBytes()).isEqualTo(1024);
        assertThat(options.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.maxTtl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.stores()).containsOnlyKeys("orders", "docs", "ledger");
        assertThat(((PostgresStoreSettings) config.stores().get("ledger")).schema()).isEqualTo("fencegate");
        assertThat(config.stores().get("orders").statements()).containsKey("debit");
        assertThat(config.stores().get("docs").lock()).isEqualTo("docs-lock");
    }

    @Test
    void lockDelaysArePerLockPrefixTheLongestWinsAndNoneIsZero() {
        GatewayConfig config = ConfigLoader.parse(VALID + """
                leases:
                  lockDelay: { "orders/": 5s, "orders/slow/": 30s }
                """, Map.of());
        GatewayOptions options = Defaults.options(config).validate();
        assertThat(options.lockDelayFor("orders/42")).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.lockDelayFor("orders/slow/7")).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.lockDelayFor("docs/a")).isZero();
        assertThat(Defaults.options(ConfigLoader.parse(VALID, Map.of())).lockDelayFor("orders/1")).isZero();
    }

    @Test
    void aBadLockDelayIsRefusedNamingItsPrefix() {
        assertRefused(VALID + "leases: { lockDelay: { \"orders/\": soon } }\n", Map.of(), "leases.lockDelay.\"orders/\"");
        assertRefused(VALID + "leases: { delay: 5s }\n", Map.of(), "leases.delay");
        GatewayOptions tooLong = Defaults.options(ConfigLoader.parse(VALID + "leases: { lockDelay: { \"a/\": 6m } }\n", Map.of()));
        assertThatThrownBy(tooLong::validate).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("leases.lockDelay.\"a/\" must be from 0 to 5m");
    }

    @Test
    void environmentVariablesOverrideKeysPresentOrNot() {
        GatewayConfig config = ConfigLoader.parse(VALID, Map.of(
                "FENCEGATE_SERVER_PORT", "9090",
                "FENCEGATE_LIMITS_MAXWAIT", "3s",
                "FENCEGATE_STORES_ORDERS_PASSWORD", "s3cret",
                "FENCEGATE_ISSUER_CONNECTSTRING", "zk1:2181,zk2:2181",
                "PATH", "/usr/bin"));
        assertThat(Defaults.options(config).port()).isEqualTo(9090);
        assertThat(Defaults.options(config).maxWait()).isEqualTo(Duration.ofSeconds(3));
        assertThat(((JdbcStoreSettings) config.stores().get("orders")).password()).isEqualTo("s3cret");
        assertThat(((ZooKeeperIssuerConfig) config.issuer()).connectString()).isEqualTo("zk1:2181,zk2:2181");
    }

    @Test
    void theLaunchersOwnVariablesAreNotConfigOverrides() {
        GatewayConfig config = ConfigLoader.parse(VALID,
                Map.of("FENCEGATE_JAVA_OPTS", "-Xmx256m", "FENCEGATE_NO_BUILD", "1"));
        assertThat(Defaults.options(config).port()).isEqualTo(8081);
        assertRefused(VALID, Map.of("FENCEGATE_JAVA_OPTS", "-Xmx256m", "FENCEGATE_FOO", "1"),
                "FENCEGATE_FOO: names no config key");
    }

    @Test
    void anOverrideThatNamesNoKeyIsAnError() {
        assertRefused(VALID, Map.of("FENCEGATE_STORES_NOSUCH_URL", "x"), "FENCEGATE_STORES_NOSUCH_URL: names no config key");
    }

    @Test
    void everyProblemNamesItsKey() {
        assertRefused(VALID.replace("port: 8081", "port: 8081, bogus: 1"), Map.of(), "server.bogus: unknown key");
        assertRefused(VALID.replace("port: 8081", "port: eighty"), Map.of(), "server.port:");
        assertRefused(VALID.replace("rule: same-lease", "rule: lenient"), Map.of(),
                "stores.orders.rule: expected strict or same-lease, got 'lenient'");
        assertRefused(VALID.replace("requestTimeout: 5s", "requestTimeout: soon"), Map.of(), "limits.requestTimeout:");
        assertRefused(VALID.replace("tokenMode: cversion", "tokenMode: random"), Map.of(), "issuer.tokenMode:");
        assertRefused(VALID, Map.of("FENCEGATE_ISSUER_FORGETIDLELOCKSAFTER", "soon"), "issuer.forgetIdleLocksAfter:");
        assertRefused(VALID.replace("type: zookeeper", "type: etcd"), Map.of(), "issuer.type:");
        assertRefused(VALID.replace("connectString: \"127.0.0.1:2181\", ", ""), Map.of(), "issuer.connectString: required");
        assertRefused(VALID.replace("type: files, dir: /srv/docs", "type: files"), Map.of(), "stores.docs.dir: required");
        assertRefused(VALID.replace("type: files", "type: s3"), Map.of(), "stores.docs.type:");
        assertRefused(VALID.replace("url: jdbc:mariadb://127.0.0.1:3306/shop", "url: mariadb://x"), Map.of(), "stores.orders.url:");
        assertRefused(VALID.replace("\"UPDATE accounts SET balance = balance - :amount WHERE id = :id\"", "\" \""), Map.of(),
                "stores.orders.statements.debit:");
        assertRefused(VALID.replace("port: 5432", "port: 70000"), Map.of(), "stores.ledger.port: must be 1..65535");
        assertRefused(VALID.replace("schema: fencegate", "schema: \"x; DROP\""), Map.of(), "stores.ledger.schema:");
        assertRefused(VALID.replace("database: shop,", "database: shop, url: \"jdbc:postgresql://x/y\","), Map.of(),
                "stores.ledger.url: not a key of a postgres store");
        assertRefused(VALID.replace("user: root", "user: root\n    database: shop"), Map.of(),
                "stores.orders.database: not a key of a jdbc store");
        assertRefused(VALID.replace("lock: docs-lock", "lock: docs-lock, host: h"), Map.of(),
                "stores.docs.host: not a key of a files store");
        String redis = "issuer: { type: redis, uri: \"redis://127.0.0.1:6379\" }\n" + VALID.substring(VALID.indexOf("stores:"));
        assertRefused(redis, Map.of(), "issuer.highWaterMarkFile: set either");
        assertRefused(redis, Map.of("FENCEGATE_ISSUER_HIGHWATERMARKFILE", "/m", "FENCEGATE_ISSUER_HIGHWATERMARKURL", "jdbc:h2:mem:m"),
                "issuer.highWaterMarkFile: set either");
        assertRefused(redis, Map.of("FENCEGATE_ISSUER_HIGHWATERMARKURL", "postgres://db/marks"), "issuer.highWaterMarkUrl:");
        assertRefused("issuer: { type: zookeeper, connectString: x }\n", Map.of(), "stores: configure at least one store");
        assertRefused("stores: {}\n", Map.of(),
                "2 problems in the config:\n  issuer.type: required: zookeeper, redis, sql or embedded-zookeeper\n"
                        + "  stores: configure at least one store");
    }

    @Test
    void everyProblemInTheFileIsReportedAtOnceWithTheNearestKnownName() {
        String yaml = """
                isuer: { type: zookeeper, connectString: "127.0.0.1:2181" }
                server: { prot: 8081 }
                stores:
                  orders: { type: postgress, host: 127.0.0.1 }
                  docs: { type: files }
                  ledger: { type: jdbc, url: "jdbc:h2:mem:x", rule: lenient, poolSzie: 4 }
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(yaml, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("6 problems in the config:\n")
                .hasMessageContaining("\n  isuer: unknown key; did you mean 'issuer'?\n")
                .hasMessageContaining("\n  server.prot: unknown key; did you mean 'port'?\n")
                .hasMessageContaining("\n  stores.orders.type: expected ")
                .hasMessageContaining("got 'postgress'; did you mean 'postgres'?\n")
                .hasMessageContaining("\n  stores.ledger.poolSzie: not a key of a jdbc store; did you mean 'poolSize'?\n")
                .hasMessageContaining("\n  stores.docs.dir: required")
                .hasMessageContaining("\n  stores.ledger.rule: expected strict or same-lease, got 'lenient'");
    }

    @Test
    void aMisspeltIssuerTypeIsNamedWithTheNearestType() {
        assertRefused(VALID.replace("type: zookeeper", "type: zookeepr"), Map.of(),
                "issuer.type: expected zookeeper, redis, sql or embedded-zookeeper, got 'zookeepr'; did you mean 'zookeeper'?");
        // Nothing near: no hint.
        assertThatThrownBy(() -> ConfigLoader.parse(VALID.replace("type: zookeeper", "type: etcd"), Map.of()))
                .hasMessageNotContaining("did you mean");
    }

    @Test
    void aFilesStoreRefusesEveryKeyOfTheSqlStores() {
        for (String key : new String[] {"port: 5432", "user: u", "password: p", "poolSize: 4", "queryTimeout: 5s"}) {
            String name = key.substring(0, key.indexOf(':'));
            assertRefused(VALID.replace("lock: docs-lock", "lock: docs-lock, " + key), Map.of(),
                    "stores.docs." + name + ": not a key of a files store");
        }
    }

    @Test
    void serverOptionsAreCheckedWithTheirKeys() {
        GatewayConfig config = ConfigLoader.parse(VALID.replace("host: 127.0.0.1", "host: 0.0.0.0"), Map.of());
        assertThatThrownBy(() -> Defaults.options(config).validate()).hasMessageContaining("server.host")
                .hasMessageContaining("auth");
        GatewayConfig noLoops = ConfigLoader.parse(VALID.replace("eventLoops: 3", "eventLoops: 0"), Map.of());
        assertThatThrownBy(() -> Defaults.options(noLoops).validate()).hasMessageStartingWith("server.eventLoops");
        GatewayConfig badKey = ConfigLoader.parse("auth: { keys: [ { name: a, sha256: nothex } ] }\n"
                + VALID.substring(VALID.indexOf("issuer")), Map.of());
        assertThatThrownBy(() -> Defaults.options(badKey).validate()).hasMessageContaining("auth.keys[0].sha256");
    }

    @Test
    void perKeySharesAreReadFromLimitsPerKeyAndCheckedWithTheirKeys() {
        GatewayOptions options = Defaults.options(ConfigLoader.parse(VALID, Map.of(
                "FENCEGATE_LIMITS_PERKEY_WATCHEDLEASES", "7", "FENCEGATE_LIMITS_PERKEY_LEASES", "50"))).validate();
        assertThat(options.keyShares().watchedLeases()).isEqualTo(7);
        assertThat(options.keyShares().leases()).isEqualTo(50);
        assertThat(options.keyShares().watchStreams()).isEqualTo(1000);
        GatewayConfig overTotal = ConfigLoader.parse(VALID, Map.of("FENCEGATE_LIMITS_PERKEY_WATCHEDLEASES", "5000"));
        assertThatThrownBy(() -> Defaults.options(overTotal).validate())
                .hasMessageStartingWith("limits.perKey.watchedLeases must be from 1 to 1000, was 5000");
    }
}
