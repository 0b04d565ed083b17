package io.fencegate.store.postgres;

import static io.fencegate.store.testkit.Stages.await;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.Executed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.NamedSql;
import io.fencegate.store.Stale;
import io.fencegate.store.testkit.AbstractGuardedStoreContractTest;
import io.fencegate.store.WriteResult;
import io.fencegate.store.testkit.KeyColumnChecks;
import io.fencegate.store.testkit.OutageHarness;
import io.fencegate.store.StoreLimits;
import io.vertx.core.Vertx;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The store contract on the real PostgreSQL at 127.0.0.1:5432 through the reactive client, in a
 * schema of its own; plus guard-row statements.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgGuardedStoreIT extends AbstractGuardedStoreContractTest {
    private final String schema = "fg_pg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final List<Vertx> vertxes = new CopyOnWriteArrayList<>();
    private Vertx vertx;

    @BeforeAll
    void createSchema() throws Exception {
        admin("CREATE SCHEMA " + schema);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema);
        ds.setUser("postgres");
        FencegateSchema.migrate(ds);
        admin("CREATE TABLE " + schema + ".accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
        vertx = newVertx();
    }

    @AfterAll
    void dropSchema() throws Exception {
        for (Vertx v : vertxes) {
            v.close().await(10, TimeUnit.SECONDS);
        }
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private Vertx newVertx() {
        Vertx v = Vertx.vertx();
        vertxes.add(v);
        return v;
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private PgStoreOptions options(int port, GuardRule rule) {
        return new PgStoreOptions().host("127.0.0.1").port(port).database("test").user("postgres")
                .schema(schema).name(storeName()).rule(rule).poolSize(4)
                .connectTimeout(Duration.ofSeconds(2)).operationTimeout(Duration.ofSeconds(4));
    }

    @Override
    protected GuardedStore newStore(GuardRule rule) {
        return PgGuardedStore.open(vertx, options(5432, rule));
    }

    /** Its own Vert.x and pool: as another gateway would have. */
    @Override
    protected GuardedStore newIndependentStore(GuardRule rule) {
        return PgGuardedStore.open(newVertx(), options(5432, rule));
    }

    @Override
    protected String storeName() {
        return "orders"; // as in README's snippet, which runs on the same schema
    }

    @Override
    protected GuardedStore newStoreNamed(String name, GuardRule rule) {
        return PgGuardedStore.open(vertx, options(5432, rule).name(name));
    }

    @Override
    protected OutageHarness outageHarness() {
        return OutageHarness.tcp(new java.net.InetSocketAddress("127.0.0.1", 5432),
                (proxy, rule) -> PgGuardedStore.open(vertx, options(proxy.getPort(), rule)));
    }

    @Test
    void statementsRunUnderTheGuardRowAllOrNothing() throws Exception {
        PgGuardedStore store = closeAfter(PgGuardedStore.open(vertx, options(5432, GuardRule.STRICT)));
        String id = key("acct");
        admin("INSERT INTO " + schema + ".accounts VALUES ('" + id + "', 100)");
        NamedSql debit = NamedSql.parse("UPDATE accounts SET balance = balance - :amount WHERE id = :id");
        String guard = "accounts/" + id;

        assertThat(await(store.execute(guard, 5, debit, Map.of("id", id, "amount", 30)))).isEqualTo(new Executed(0, 1));
        assertThat(await(store.execute(guard, 4, debit, Map.of("id", id, "amount", 30)))).isEqualTo(new Stale(5, 5, 4));
        assertThat(await(store.execute(guard, 5, debit, Map.of("id", id, "amount", 30)))).isEqualTo(new Stale(5, 5, 5));
        assertThatThrownBy(() -> await(store.execute(guard, 6, debit, Map.of("id", id))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("amount");
        NamedSql broken = NamedSql.parse("UPDATE accounts SET nosuch = :v WHERE id = :id");
        assertThatThrownBy(() -> await(store.execute(guard, 6, broken, Map.of("id", id, "v", 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("statement failed");
        // Neither failure advanced the guard row or ran anything.
        assertThat(await(store.execute(guard, 6, debit, Map.of("id", id, "amount", 10)))).isEqualTo(new Executed(5, 1));
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema,
                "postgres", ""); Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT balance FROM accounts WHERE id = '" + id + "'")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(60);
        }
    }

    /** fencegate_item.resource is VARCHAR(2048): characters, so multi-byte keys must be counted in bytes. */
    @Test
    void keysLongerThanTheKeyColumnAreRefusedAndChangeNothing() throws Exception {
        PgGuardedStore store = closeAfter(PgGuardedStore.open(vertx, options(5432, GuardRule.STRICT)
                .limits(new StoreLimits(8192, 1024 * 1024))));
        KeyColumnChecks.assertKeysPastTheColumnAreRefused(store, key(""), 2048);
    }

    /** README's snippet, as printed (the migration already ran in {@link #createSchema()}). */
    @Test
    void readmeSnippet() throws Exception {
        long token = 7;
        PgGuardedStore orders = PgGuardedStore.open(vertx, new PgStoreOptions()
                .host("127.0.0.1").database("test").schema(schema).user("postgres").name("orders")
                .operationTimeout(Duration.ofSeconds(5)));            // past it: StoreUnavailableException
        CompletionStage<WriteResult> sold = orders.fencedRead("stock/widget", token)
                .thenCompose(read -> orders.write("stock/widget", token, "0".getBytes(UTF_8)));
        try (orders) {
            assertThat(sold.toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(Applied.class);
            Found found = (Found) await(orders.read("stock/widget"));
            assertThat(found.value()).asString(UTF_8).isEqualTo("0");
            assertThat(found.token()).isEqualTo(7);
        }
    }
}
