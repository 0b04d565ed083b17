package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Executed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.NamedSql;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The library shapes an application uses with its own pool and jOOQ: a token column on its own
 * table (guarded UPDATE, fenced-read claim), and guard-row transactions — on every database.
 */
@Timeout(60)
class LibraryShapesIT {

    static final Table<?> STOCK = DSL.table(DSL.unquotedName("stock"));
    static final Field<String> SKU = DSL.field(DSL.unquotedName("sku"), SQLDataType.VARCHAR(64));
    static final Field<Long> QTY = DSL.field(DSL.unquotedName("qty"), SQLDataType.BIGINT);
    static final Field<Long> TOKEN = DSL.field(DSL.unquotedName("token"), SQLDataType.BIGINT);
    static final Field<Long> FENCE = DSL.field(DSL.unquotedName("fence"), SQLDataType.BIGINT);
    static final Table<?> SALES = DSL.table(DSL.unquotedName("sales"));
    static final Field<String> SALE_SKU = DSL.field(DSL.unquotedName("sku"), SQLDataType.VARCHAR(64));

    private TestDatabase db;
    private HikariDataSource pool;
    private DSLContext dsl;

    private void setUp(TestDatabase.Kind kind) throws Exception {
        db = TestDatabase.create(kind);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.username());
        config.setMaximumPoolSize(10);
        pool = new HikariDataSource(config);
        FencegateSchema.migrate(pool);
        dsl = DSL.using(pool, switch (kind) {
            case MARIADB -> SQLDialect.MARIADB;
            case POSTGRES -> SQLDialect.POSTGRES;
            case H2 -> SQLDialect.H2;
        });
        dsl.execute("CREATE TABLE stock (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty BIGINT NOT NULL,"
                + " token BIGINT NOT NULL, fence BIGINT NOT NULL)");
        dsl.execute("CREATE TABLE sales (sku VARCHAR(64) NOT NULL)");
        dsl.insertInto(STOCK).set(SKU, "sku-42").set(QTY, 1L).set(TOKEN, 4L).set(FENCE, 4L).execute();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (pool != null) {
            pool.close();
        }
        if (db != null) {
            db.close();
        }
    }

    private int sell(long token, TokenColumnGuard guard) {
        return dsl.update(STOCK)
                .set(QTY, QTY.minus(1))
                .set(guard.advanceTo(token))
                .where(SKU.eq("sku-42"))
                .and(guard.admits(token))
                .execute();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void tokenColumnUpdateAppliesOnlyAdmittedTokensWithExactCounts(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        TokenColumnGuard strict = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.STRICT);
        assertThat(sell(5, strict)).isEqualTo(1);
        assertThat(sell(5, strict)).as("strict: one write per token").isZero();
        assertThat(sell(3, strict)).isZero();
        TokenColumnGuard sameLease = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.SAME_LEASE);
        assertThat(sell(5, sameLease)).isEqualTo(1);
        assertThat(sell(4, sameLease)).isZero();
        assertThat(dsl.select(QTY, TOKEN, FENCE).from(STOCK).fetchOne().intoArray()).containsExactly(-1L, 5L, 5L);
        TokenColumnGuard tokenOnly = TokenColumnGuard.of(TOKEN, GuardRule.STRICT);
        assertThat(dsl.update(STOCK).set(QTY, 10L).set(tokenOnly.advanceTo(6)).where(SKU.eq("sku-42"))
                .and(tokenOnly.admits(6)).execute()).isEqualTo(1);
        assertThatThrownBy(() -> tokenOnly.claim(dsl, STOCK, SKU.eq("sku-42"), 7)).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void claimOnTheFenceColumnFencesOutALowerTokensWrite(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        TokenColumnGuard guard = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.STRICT);
        // A holds 5, B holds 6: both read the same stock; B's claim fences A out.
        assertThat(guard.claim(dsl, STOCK, SKU.eq("sku-42"), 5)).isTrue();
        long seenByA = dsl.select(QTY).from(STOCK).where(SKU.eq("sku-42")).fetchOne(QTY);
        assertThat(guard.claim(dsl, STOCK, SKU.eq("sku-42"), 6)).isTrue();
        long seenByB = dsl.select(QTY).from(STOCK).where(SKU.eq("sku-42")).fetchOne(QTY);
        assertThat(seenByA).isEqualTo(seenByB).isEqualTo(1);
        assertThat(sell(5, guard)).as("A's write after B's claim").isZero();
        assertThat(guard.claim(dsl, STOCK, SKU.eq("sku-42"), 5)).as("A's claim below the fence").isFalse();
        assertThat(guard.claim(dsl, STOCK, SKU.eq("sku-42"), 6)).as("a claim at the fence is admitted").isTrue();
        assertThat(sell(6, guard)).isEqualTo(1);
        assertThat(dsl.select(QTY, TOKEN, FENCE).from(STOCK).fetchOne().intoArray()).containsExactly(0L, 6L, 6L);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void guardRowTransactionCommitsAllStatementsAndAdvancesTheGuard(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
        StatementResult result = guarded.run("inventory/sku-42", 7, tx ->
                tx.update(STOCK).set(QTY, QTY.minus(1)).where(SKU.eq("sku-42")).execute()
                        + tx.insertInto(SALES).set(SALE_SKU, "sku-42").execute());
        assertThat(result).isEqualTo(new Executed(0, 2));
        assertThat(guarded.run("inventory/sku-42", 7, tx -> 0)).isEqualTo(new Stale(7, 7, 7));
        assertThat(guarded.run("inventory/sku-42", 6, tx -> {
            throw new AssertionError("a stale transaction must not run its statements");
        })).isEqualTo(new Stale(7, 7, 6));
        assertThat(guarded.run("inventory/sku-42", 9, tx -> 0)).isEqualTo(new Executed(7, 0));
        assertThat(dsl.fetchCount(SALES)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void guardRowTransactionRollsBackEverythingWhenTheWorkFails(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
        assertThatThrownBy(() -> guarded.run("inventory/sku-42", 5, tx -> {
            tx.insertInto(SALES).set(SALE_SKU, "sku-42").execute();
            tx.update(STOCK).set(QTY, 0L).where(SKU.eq("sku-42")).execute();
            throw new IllegalStateException("payment failed");
        })).isInstanceOf(IllegalStateException.class).hasMessage("payment failed");
        assertThat(dsl.fetchCount(SALES)).isZero();
        assertThat(dsl.select(QTY).from(STOCK).fetchOne(QTY)).isEqualTo(1L);
        // The guard row created inside the failed transaction went with it; token 5 is still unused.
        assertThat(dsl.fetchCount(DSL.table(DSL.unquotedName("fencegate_fence")))).isZero();
        assertThat(guarded.run("inventory/sku-42", 5, tx -> 0)).isEqualTo(new Executed(0, 0));
        // A failing statement (not just an exception) rolls back too.
        assertThatThrownBy(() -> guarded.run("inventory/sku-42", 6, tx ->
                tx.insertInto(SALES).set(SALE_SKU, "sku-42").execute()
                        + tx.execute("INSERT INTO no_such_table VALUES (1)")));
        assertThat(dsl.fetchCount(SALES)).isZero();
        assertThat(guarded.run("inventory/sku-42", 6, tx -> 0)).isEqualTo(new Executed(5, 0));
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void guardRowTransactionIsAFencedReadModifyWriteByConstruction(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            // The interleaving of DESIGN.md made deterministic: A (5) has read stock = 1 and pauses;
            // B (6) starts meanwhile. B waits on the guard row, then reads what A committed.
            CountDownLatch aHasRead = new CountDownLatch(1);
            Future<StatementResult> a = threads.submit(() -> guarded.run("inventory/sku-42", 5, tx -> {
                long qty = tx.select(QTY).from(STOCK).where(SKU.eq("sku-42")).fetchOne(QTY);
                aHasRead.countDown();
                Thread.sleep(300);
                return qty > 0 ? sellIn(tx) : 0;
            }));
            aHasRead.await();
            Future<StatementResult> b = threads.submit(() -> guarded.run("inventory/sku-42", 6, tx -> {
                long qty = tx.select(QTY).from(STOCK).where(SKU.eq("sku-42")).fetchOne(QTY);
                return qty > 0 ? sellIn(tx) : 0;
            }));
            assertThat(a.get(20, TimeUnit.SECONDS)).isEqualTo(new Executed(0, 2));
            assertThat(b.get(20, TimeUnit.SECONDS)).as("B saw A's sale").isEqualTo(new Executed(5, 0));
            assertThat(dsl.fetchCount(SALES)).as("one item, one sale").isEqualTo(1);
            assertThat(dsl.select(QTY).from(STOCK).fetchOne(QTY)).isZero();

            // And under concurrency: increments with tokens handed out in order count exactly.
            dsl.update(STOCK).set(QTY, 0L).execute();
            AtomicLong tokens = new AtomicLong(100);
            AtomicInteger executed = new AtomicInteger();
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                workers.add(threads.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        StatementResult r = guarded.run("counter", tokens.incrementAndGet(), tx -> {
                            long qty = tx.select(QTY).from(STOCK).where(SKU.eq("sku-42")).fetchOne(QTY);
                            return tx.update(STOCK).set(QTY, qty + 1).where(SKU.eq("sku-42")).execute();
                        });
                        if (r instanceof Executed) {
                            executed.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get(40, TimeUnit.SECONDS);
            }
            assertThat(executed.get()).isPositive();
            assertThat(dsl.select(QTY).from(STOCK).fetchOne(QTY)).isEqualTo(executed.get());
        } finally {
            threads.shutdownNow();
        }
    }

    private static int sellIn(DSLContext tx) {
        return tx.update(STOCK).set(QTY, QTY.minus(1)).where(SKU.eq("sku-42")).execute()
                + tx.insertInto(SALES).set(SALE_SKU, "sku-42").execute();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void namedStatementsRunUnderTheGuardRowWithBoundParameters(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        try (JdbcGuardedStore store = JdbcGuardedStore.over(pool, new JdbcStoreOptions().migrate(false).poolSize(2))) {
            NamedSql sell = NamedSql.parse("UPDATE stock SET qty = qty - :n WHERE sku = :sku AND qty >= :n");
            Map<String, Object> params = Map.of("n", 1, "sku", "sku-42");
            assertThat(await(store.execute("inventory/sku-42", 5, sell, params))).isEqualTo(new Executed(0, 1));
            assertThat(await(store.execute("inventory/sku-42", 5, sell, params))).isEqualTo(new Stale(5, 5, 5));
            assertThat(await(store.execute("inventory/sku-42", 6, sell, params))).isEqualTo(new Executed(5, 0));
            // A value that looks like SQL stays a value.
            assertThat(await(store.execute("inventory/sku-42", 7, sell, Map.of("n", 1, "sku", "x' OR '1'='1"))))
                    .isEqualTo(new Executed(6, 0));
            assertThat(dsl.select(QTY).from(STOCK).fetchOne(QTY)).isZero();
            // The guard-row API and the named statements share the guard rows.
            assertThat(GuardRowTransactions.of(dsl, GuardRule.STRICT).run("inventory/sku-42", 7, tx -> 0))
                    .isEqualTo(new Stale(7, 7, 7));
        }
    }
}
