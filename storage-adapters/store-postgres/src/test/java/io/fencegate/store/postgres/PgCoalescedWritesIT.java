package io.fencegate.store.postgres;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.WriteCoalescer;
import io.fencegate.store.testkit.AbstractCoalescedWritesTest;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The reactive store coalesces the writes in flight into one statement a connection: the kit's
 * suite (one serial history, never one key twice in a batch), and here a row the database refuses
 * fails alone, and a connection killed mid-batch fails the whole batch with
 * StoreUnavailableException and applies none of it. Real PostgreSQL, a schema of its own (it has
 * a poisoned-value constraint the contract suite must not see).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgCoalescedWritesIT extends AbstractCoalescedWritesTest {
    private static final byte[] POISON = "poison".getBytes(StandardCharsets.UTF_8);

    private final String schema = "fg_pgc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Vertx vertx;

    @BeforeAll
    void createSchema() throws Exception {
        admin("CREATE SCHEMA " + schema);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url());
        ds.setUser("postgres");
        FencegateSchema.migrate(ds);
        // A value the database refuses, for the one-bad-row test: a real failure of one row.
        admin("ALTER TABLE " + schema + ".fencegate_item ADD CONSTRAINT no_poison CHECK (val IS DISTINCT FROM '\\x"
                + java.util.HexFormat.of().formatHex(POISON) + "'::bytea)");
        vertx = Vertx.vertx();
    }

    @AfterAll
    void dropSchema() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private String url() {
        return "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema;
    }

    private void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private PgGuardedStore store(int poolSize) {
        return PgGuardedStore.open(vertx, new PgStoreOptions().database("test").user("postgres").schema(schema)
                .name("coalesced").poolSize(poolSize).rule(GuardRule.STRICT)
                .connectTimeout(Duration.ofSeconds(5)).operationTimeout(Duration.ofSeconds(10)));
    }

    @Override
    protected GuardedStore coalescingStore(int connections) {
        return store(connections);
    }

    @Override
    protected WriteCoalescer writesOf(GuardedStore store) {
        return ((PgGuardedStore) store).writes();
    }

    @Test
    void aRowTheDatabaseRefusesFailsAloneAndItsNeighboursApply() throws Exception {
        try (PgGuardedStore store = store(1);
                Connection holder = DriverManager.getConnection(url(), "postgres", "")) {
            List<List<String>> batches = recordBatches(store);
            String p = prefix();
            assertThat(await(store.write(p + "held", 1, bytes("v1")))).isEqualTo(new Applied(0));
            // Hold the only connection's first write on a row lock, so the next writes queue together.
            holder.setAutoCommit(false);
            lockRow(holder, p + "held");
            CompletionStage<WriteResult> first = store.write(p + "held", 2, bytes("v2"));
            awaitWaitingOnLockOf(holder);
            CompletionStage<WriteResult> left = store.write(p + "left", 5, bytes("fine"));
            CompletionStage<WriteResult> bad = store.write(p + "poisoned", 5, POISON);
            CompletionStage<WriteResult> right = store.write(p + "right", 5, bytes("fine"));
            holder.commit();
            assertThat(await(first)).isEqualTo(new Applied(1));
            assertThat(await(left)).isEqualTo(new Applied(0));
            assertThat(await(right)).isEqualTo(new Applied(0));
            assertThat(failureOf(() -> bad)).isNotInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("no_poison");
            assertThat(batches).contains(List.of(p + "left", p + "poisoned", p + "right"));
            assertThat(await(store.read(p + "poisoned"))).isEqualTo(new Missing(0, 0));
            assertThat(((Found) await(store.read(p + "left"))).token()).isEqualTo(5);
        }
    }

    /**
     * Writes in flight on a large pool still coalesce: a quarter of its connections carry batches,
     * so 16 writes at once on 16 connections are not 16 statements and 16 commits. Four writes held
     * on row locks fill the write batches; twelve more queue behind them and go out together.
     */
    @Test
    void writesOnALargePoolCoalesceOnAQuarterOfItsConnections() throws Exception {
        try (PgGuardedStore store = store(16);
                Connection holder = DriverManager.getConnection(url(), "postgres", "")) {
            List<List<String>> batches = recordBatches(store);
            String p = prefix();
            List<String> held = List.of(p + "h0", p + "h1", p + "h2", p + "h3");
            for (String k : held) {
                await(store.write(k, 1, bytes("v1")));
            }
            holder.setAutoCommit(false);
            for (String k : held) {
                lockRow(holder, k);
            }
            List<CompletionStage<WriteResult>> blocked = held.stream().map(k -> store.write(k, 2, bytes("v2"))).toList();
            awaitWaitingOnLockOf(holder);
            List<String> queued = java.util.stream.IntStream.range(0, 12).mapToObj(i -> p + "q" + i).toList();
            List<CompletionStage<WriteResult>> later = queued.stream().map(k -> store.write(k, 3, bytes("v3"))).toList();
            holder.commit();
            for (CompletionStage<WriteResult> w : blocked) {
                assertThat(await(w)).isEqualTo(new Applied(1));
            }
            for (CompletionStage<WriteResult> w : later) {
                assertThat(await(w)).isEqualTo(new Applied(0));
            }
            long carrying = batches.stream().filter(b -> b.stream().anyMatch(queued::contains)).count();
            assertThat(carrying).as("statements that carried the 12 queued writes: %s", batches).isLessThan(12);
        }
    }

    /**
     * The server ends the batch's connection while the batch waits on a row lock, part of it
     * already written in its transaction (as a restart would, without stopping the shared server).
     */
    @Test
    void aConnectionKilledMidBatchFailsEveryWriteWithStoreUnavailableAndAppliesNone() throws Exception {
        try (PgGuardedStore store = store(1);
                Connection first = DriverManager.getConnection(url(), "postgres", "");
                Connection last = DriverManager.getConnection(url(), "postgres", "")) {
            List<List<String>> batches = recordBatches(store);
            String p = prefix();
            await(store.write(p + "a-held", 1, bytes("v1")));
            await(store.write(p + "z-held", 1, bytes("v1")));
            first.setAutoCommit(false);
            last.setAutoCommit(false);
            lockRow(first, p + "a-held");
            lockRow(last, p + "z-held");
            CompletionStage<WriteResult> occupying = store.write(p + "a-held", 2, bytes("v2"));
            awaitWaitingOnLockOf(first);
            List<String> batchKeys = List.of(p + "m1", p + "m2", p + "z-held");
            List<CompletionStage<WriteResult>> batch = batchKeys.stream()
                    .map(k -> store.write(k, 7, bytes("batch"))).toList();
            first.commit();
            assertThat(await(occupying)).isEqualTo(new Applied(1));
            // The batch has written m1 and m2 (uncommitted) and waits for z-held: kill its backend.
            int batchBackend = awaitWaitingOnLockOf(last);
            admin("SELECT pg_terminate_backend(" + batchBackend + ")");
            for (CompletionStage<WriteResult> w : batch) {
                assertThat(failureOf(() -> w)).isInstanceOf(StoreUnavailableException.class);
            }
            last.rollback();
            assertThat(batches).contains(batchKeys);
            try (Statement s = last.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT count(*) FROM fencegate_item WHERE resource IN ('" + p + "m1', '" + p + "m2')"
                            + " OR (resource = '" + p + "z-held' AND token <> 1)")) {
                rs.next();
                assertThat(rs.getLong(1)).as("rows of the killed batch").isZero();
            }
            last.commit();
            // The pool replaces the connection by itself.
            Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> await(store.write(p + "m1", 8, bytes("after"))) instanceof Applied);
        }
    }

    /** The upsert needs V5's column: a schema migrated only to V4 is refused at open, naming V5. */
    @Test
    void aSchemaWithoutTheWritesColumnIsRefusedAtOpen() throws Exception {
        String old = schema + "_v4";
        admin("CREATE SCHEMA " + old);
        try {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + old);
            ds.setUser("postgres");
            FencegateSchema.migrate(ds);
            admin("ALTER TABLE " + old + ".fencegate_item DROP COLUMN previous_token");
            assertThatThrownBy(() -> PgGuardedStore.open(vertx, new PgStoreOptions().database("test").user("postgres")
                    .schema(old).name("coalesced")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("previous_token")
                    .hasMessageContaining("up to V5");
        } finally {
            admin("DROP SCHEMA " + old + " CASCADE");
        }
    }

    private static void lockRow(Connection c, String key) throws Exception {
        try (var ps = c.prepareStatement("SELECT 1 FROM fencegate_item WHERE resource = ? FOR UPDATE")) {
            ps.setString(1, key);
            ps.executeQuery().close();
        }
    }

    /** The backend waiting for a lock that {@code holder} holds, once there is one. */
    private static int awaitWaitingOnLockOf(Connection holder) throws Exception {
        int holderPid;
        try (Statement s = holder.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            holderPid = rs.getInt(1);
        }
        try (Connection watcher = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "")) {
            int[] waiting = new int[1];
            Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> {
                try (var ps = watcher.prepareStatement(
                        "SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
                    ps.setInt(1, holderPid);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            waiting[0] = rs.getInt(1);
                            return true;
                        }
                        return false;
                    }
                }
            });
            return waiting[0];
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
