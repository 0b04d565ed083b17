package io.fencegate.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.ExecutedAll;
import io.fencegate.store.GuardRule;
import io.fencegate.store.KeysResult;
import io.fencegate.store.Refused;
import io.fencegate.store.Stale;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.jooq.TransactionContext;
import org.jooq.TransactionListener;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several keys guarded in one of the application's own transactions, each key by its own token
 * ({@link GuardRowTransactions#runAll}, {@link TokenColumnGuard#runAll}), on every database: all
 * or nothing, a refusal that names every refused key, and no deadlock between crossing key sets.
 */
@Timeout(90)
class MultiKeyGuardsIT {

    static final Table<?> ACCOUNTS = DSL.table(DSL.unquotedName("accounts"));
    static final Field<String> OWNER = DSL.field(DSL.unquotedName("owner"), SQLDataType.VARCHAR(64));
    static final Field<Long> BALANCE = DSL.field(DSL.unquotedName("balance"), SQLDataType.BIGINT);
    static final Field<Long> TOKEN = DSL.field(DSL.unquotedName("token"), SQLDataType.BIGINT);
    static final Field<Long> FENCE = DSL.field(DSL.unquotedName("fence"), SQLDataType.BIGINT);
    static final Table<?> FENCES = DSL.table(DSL.unquotedName("fencegate_fence"));

    private TestDatabase db;
    private HikariDataSource pool;
    private DSLContext dsl;
    /** Transactions the database rolled back to break a deadlock (or a serialization failure), seen by jOOQ. */
    private final AtomicInteger deadlocks = new AtomicInteger();

    private void setUp(TestDatabase.Kind kind) throws Exception {
        db = TestDatabase.create(kind);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.username());
        config.setMaximumPoolSize(8);
        pool = new HikariDataSource(config);
        FencegateSchema.migrate(pool);
        SQLDialect dialect = switch (kind) {
            case MARIADB -> SQLDialect.MARIADB;
            case POSTGRES -> SQLDialect.POSTGRES;
            case H2 -> SQLDialect.H2;
        };
        dsl = DSL.using(pool, dialect);
        dsl.configuration().set(new TransactionListener() {
            @Override
            public void rollbackStart(TransactionContext ctx) {
                if (isDeadlock(ctx.causeThrowable())) {
                    deadlocks.incrementAndGet();
                }
            }
        });
        dsl.execute("CREATE TABLE accounts (owner VARCHAR(64) NOT NULL PRIMARY KEY, balance BIGINT NOT NULL,"
                + " token BIGINT NOT NULL, fence BIGINT NOT NULL)");
        for (String owner : List.of("alice", "bob", "carol")) {
            dsl.insertInto(ACCOUNTS).set(OWNER, owner).set(BALANCE, 100L).set(TOKEN, 0L).set(FENCE, 0L).execute();
        }
    }

    private static boolean isDeadlock(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("40")) {
                return true;
            }
        }
        return false;
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

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void guardRowsAreAllOrNothingAndTheRefusalNamesEveryRefusedKey(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
        assertThat(guarded.run("accounts/alice", 5, tx -> 0)).isNotInstanceOf(Stale.class);
        assertThat(guarded.run("accounts/bob", 4, tx -> 0)).isNotInstanceOf(Stale.class);

        // bob's token is stale: nothing runs, alice's guard keeps 5, carol's new guard row goes with the rollback.
        KeysResult oneStale = guarded.runAll(ordered("accounts/alice", 7L, "accounts/bob", 3L, "accounts/carol", 9L), tx -> {
            throw new AssertionError("the work must not run when a guard refuses");
        });
        assertThat(oneStale).isEqualTo(new Refused(List.of(new Refused.Item("accounts/bob", new Stale(4, 4, 3)))));
        assertThat(dsl.fetchCount(FENCES)).as("no guard row for carol").isEqualTo(2);

        // Two refused keys: both named, in the map's order, each with its own current token and fence.
        KeysResult twoStale = guarded.runAll(ordered("accounts/bob", 2L, "accounts/carol", 9L, "accounts/alice", 5L),
                tx -> 0);
        assertThat(twoStale).isEqualTo(new Refused(List.of(
                new Refused.Item("accounts/bob", new Stale(4, 4, 2)),
                new Refused.Item("accounts/alice", new Stale(5, 5, 5)))));

        // Every guard admits: both statements run, every guard advances to its own token.
        KeysResult moved = guarded.runAll(ordered("accounts/bob", 8L, "accounts/alice", 6L),
                tx -> transfer(tx, "alice", "bob", 30));
        assertThat(moved).isEqualTo(new ExecutedAll(Map.of("accounts/alice", 5L, "accounts/bob", 4L), 2));
        assertThat(((ExecutedAll) moved).previousTokens().keySet()).as("lock order")
                .containsExactly("accounts/alice", "accounts/bob");
        assertThat(guarded.run("accounts/alice", 6, tx -> 0)).isEqualTo(new Stale(6, 6, 6));
        assertThat(guarded.run("accounts/bob", 7, tx -> 0)).isEqualTo(new Stale(8, 8, 7));
        assertThat(balances()).containsExactly(70L, 130L, 100L);

        // The work failing rolls back the statements and every guard.
        assertThatThrownBy(() -> guarded.runAll(ordered("accounts/alice", 10L, "accounts/bob", 10L), tx -> {
            transfer(tx, "alice", "bob", 1);
            throw new IllegalStateException("payment failed");
        })).hasMessage("payment failed");
        assertThat(balances()).containsExactly(70L, 130L, 100L);
        assertThat(guarded.runAll(ordered("accounts/alice", 10L, "accounts/bob", 10L), tx -> 0))
                .isEqualTo(new ExecutedAll(Map.of("accounts/alice", 6L, "accounts/bob", 8L), 0));

        // Bad input is refused before anything runs.
        assertThatThrownBy(() -> guarded.runAll(Map.of(), tx -> 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> guarded.runAll(Map.of("accounts/alice", 0L), tx -> 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(deadlocks.get()).isZero();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void tokenColumnsAreAllOrNothingAndTheRefusalNamesEveryRefusedKey(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        TokenColumnGuard guard = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.STRICT);
        dsl.update(ACCOUNTS).set(TOKEN, 4L).set(FENCE, 6L).where(OWNER.eq("bob")).execute();   // bob: claimed by 6

        KeysResult refused = guard.runAll(dsl, ACCOUNTS, OWNER, ordered("carol", 2L, "bob", 5L, "alice", 3L), tx -> {
            throw new AssertionError("the work must not run when a guard refuses");
        });
        assertThat(refused).isEqualTo(new Refused(List.of(new Refused.Item("bob", new Stale(4, 6, 5)))));
        assertThat(dsl.select(TOKEN).from(ACCOUNTS).orderBy(OWNER).fetch(TOKEN)).as("no token moved").containsExactly(0L, 4L, 0L);

        KeysResult moved = guard.runAll(dsl, ACCOUNTS, OWNER, ordered("bob", 7L, "alice", 3L),
                tx -> transfer(tx, "bob", "alice", 25));
        assertThat(moved).isEqualTo(new ExecutedAll(Map.of("alice", 0L, "bob", 4L), 2));
        assertThat(dsl.select(BALANCE, TOKEN, FENCE).from(ACCOUNTS).orderBy(OWNER).fetch().map(r -> r.intoList()))
                .containsExactly(List.of(125L, 3L, 3L), List.of(75L, 7L, 7L), List.of(100L, 0L, 0L));

        // Under SAME_LEASE the holder of 7 writes bob again; alice's lower token is refused with it.
        TokenColumnGuard sameLease = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.SAME_LEASE);
        assertThat(sameLease.runAll(dsl, ACCOUNTS, OWNER, ordered("bob", 7L, "alice", 2L), tx -> 0))
                .isEqualTo(new Refused(List.of(new Refused.Item("alice", new Stale(3, 3, 2)))));
        assertThat(sameLease.runAll(dsl, ACCOUNTS, OWNER, ordered("bob", 7L, "alice", 3L), tx -> 0))
                .isInstanceOf(ExecutedAll.class);

        // A key without a row is bad input: nothing changes.
        assertThatThrownBy(() -> guard.runAll(dsl, ACCOUNTS, OWNER, ordered("alice", 9L, "dave", 9L), tx -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dave");
        assertThat(dsl.select(TOKEN).from(ACCOUNTS).where(OWNER.eq("alice")).fetchOne(TOKEN)).isEqualTo(3L);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void crossingKeyOrdersUnderContentionNeverDeadlock(TestDatabase.Kind kind) throws Exception {
        setUp(kind);
        GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
        // Guard rows exist before the contention: the first use of a key is another race (GuardRowFirstUseRaceIT).
        guarded.runAll(ordered("alice", 1L, "bob", 1L), tx -> 0);
        contend(guarded::runAll);
        // One shape at a time: the guard-row transfers update the rows the token columns guard,
        // and every writer of a row must go through the same guard.
        TokenColumnGuard guard = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.STRICT);
        contend((keys, work) -> guard.runAll(dsl, ACCOUNTS, OWNER, keys, work));
    }

    /**
     * Eight threads run transfers over {alice, bob} and {bob, alice}, as their maps list them.
     * Locked in the maps' order, two transactions would each hold one key and wait for the other's
     * (the database breaks the deadlock by rolling one back, and the retry hides it from the
     * caller, not from the transaction listener); locked in the canonical order, none ever does.
     * Money is conserved, and every executed transfer moved exactly once.
     */
    private void contend(MultiKeyShape shape) throws Exception {
        List<Long> before = balances();
        AtomicLong tokens = new AtomicLong(dsl.select(DSL.max(TOKEN)).from(ACCOUNTS).fetchOne().value1() + 100);
        AtomicInteger aliceToBob = new AtomicInteger();
        AtomicInteger bobToAlice = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                boolean aliceFirst = w % 2 == 0;
                String from = aliceFirst ? "alice" : "bob";
                String to = aliceFirst ? "bob" : "alice";
                workers.add(threads.submit(() -> {
                    for (int i = 0; i < 6; i++) {
                        long t = tokens.incrementAndGet();
                        if (shape.runAll(ordered(from, t, to, t), tx -> transfer(tx, from, to, 1)) instanceof ExecutedAll) {
                            (aliceFirst ? aliceToBob : bobToAlice).incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get(80, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(deadlocks.get()).as("transactions rolled back for a deadlock").isZero();
        assertThat(aliceToBob.get() + bobToAlice.get()).isPositive();
        long net = aliceToBob.get() - bobToAlice.get();
        assertThat(balances()).containsExactly(before.get(0) - net, before.get(1) + net, before.get(2));
    }

    @FunctionalInterface
    private interface MultiKeyShape {
        KeysResult runAll(Map<String, Long> tokens, GuardRowTransactions.GuardedWork work);
    }

    private static int transfer(DSLContext tx, String from, String to, long amount) {
        return tx.update(ACCOUNTS).set(BALANCE, BALANCE.minus(amount)).where(OWNER.eq(from)).execute()
                + tx.update(ACCOUNTS).set(BALANCE, BALANCE.plus(amount)).where(OWNER.eq(to)).execute();
    }

    private List<Long> balances() {
        return dsl.select(BALANCE).from(ACCOUNTS).orderBy(OWNER).fetch(BALANCE);
    }

    private static Map<String, Long> ordered(Object... keysAndTokens) {
        Map<String, Long> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndTokens.length; i += 2) {
            map.put((String) keysAndTokens[i], (Long) keysAndTokens[i + 1]);
        }
        return map;
    }
}
