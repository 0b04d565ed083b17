package io.fencegate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ReadResult;
import io.fencegate.store.WriteCoalescer;
import io.fencegate.store.WriteResult;
import io.fencegate.store.testkit.OverlappingWriters;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@link PgStoreOptions#eventLoops()} above one: each calling event loop keeps to a lane of its own,
 * whose batches run on that loop and hold only that loop's writes; and writes to one key arriving
 * through two lanes still get answers of one serial history. Real PostgreSQL, a schema of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PgLanesIT {
    private final String schema = "fg_pgl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Vertx vertx;

    @BeforeAll
    void createSchema() throws Exception {
        admin("CREATE SCHEMA " + schema);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema);
        ds.setUser("postgres");
        FencegateSchema.migrate(ds);
        vertx = Vertx.vertx();
    }

    @AfterAll
    void dropSchema() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private PgGuardedStore store(int poolSize, int eventLoops) {
        return PgGuardedStore.open(vertx, new PgStoreOptions().database("test").user("postgres").schema(schema)
                .name("lanes").poolSize(poolSize).eventLoops(eventLoops).rule(GuardRule.STRICT)
                .connectTimeout(Duration.ofSeconds(5)).operationTimeout(Duration.ofSeconds(20)));
    }

    /** One batch as its coalescer started it: in which lane, on which thread, with which keys. */
    private record Batch(int lane, String thread, List<String> keys) {}

    private static List<Batch> recordBatches(PgGuardedStore store) {
        List<Batch> batches = new CopyOnWriteArrayList<>();
        List<PgLanes.Lane> lanes = store.lanes().all();
        for (int i = 0; i < lanes.size(); i++) {
            int lane = i;
            lanes.get(i).writes().observe(batch -> batches.add(new Batch(lane, Thread.currentThread().getName(),
                    batch.stream().map(WriteCoalescer.Write::key).toList())));
        }
        return batches;
    }

    @Test
    void eachEventLoopsWritesRunInItsOwnLaneOnItsOwnThreadAndAreAnsweredThere() throws Exception {
        try (PgGuardedStore store = store(4, 2)) {
            assertThat(store.lanes().all()).hasSize(2);
            List<Batch> batches = recordBatches(store);
            String p = UUID.randomUUID().toString().substring(0, 8) + "/";
            List<Context> loops = twoEventLoops();
            List<String> threads = new ArrayList<>();
            for (Context loop : loops) {
                CompletableFuture<String> name = new CompletableFuture<>();
                loop.runOnContext(v -> name.complete(Thread.currentThread().getName()));
                threads.add(name.get(10, TimeUnit.SECONDS));
            }
            assertThat(threads.get(0)).as("two distinct event loops").isNotEqualTo(threads.get(1));
            List<String> answeredElsewhere = new CopyOnWriteArrayList<>();
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int l = 0; l < 2; l++) {
                Context loop = loops.get(l);
                String thread = threads.get(l);
                // 8 writes in flight from each loop on 2 connections a lane: batches form from what queues.
                AtomicInteger token = new AtomicInteger();
                for (int chain = 0; chain < 8; chain++) {
                    CompletableFuture<Void> finished = new CompletableFuture<>();
                    done.add(finished);
                    String key = p + thread + "/" + chain;
                    loop.runOnContext(v -> writeChain(store, key, token, 40, thread, answeredElsewhere, finished));
                }
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(answeredElsewhere).as("writes answered off their caller's event loop").isEmpty();
            assertThat(batches).as("batches ran").isNotEmpty()
                    .anySatisfy(b -> assertThat(b.keys()).hasSizeGreaterThan(1));
            assertThat(batches).allSatisfy(b -> assertThat(b.keys())
                    .as("a batch started on %s holds only that loop's writes", b.thread())
                    .allMatch(k -> k.startsWith(p + b.thread() + "/")));
            Set<String> ranOn = new HashSet<>();
            batches.forEach(b -> ranOn.add(b.thread()));
            assertThat(ranOn).containsExactlyInAnyOrderElementsOf(threads);
        }
    }

    /** Two event-loop contexts on two threads: a deployment of two instances gets one loop each. */
    private List<Context> twoEventLoops() throws Exception {
        List<Context> contexts = new CopyOnWriteArrayList<>();
        vertx.deployVerticle(() -> new VerticleBase() {
            @Override
            public Future<?> start() {
                contexts.add(context);
                return Future.succeededFuture();
            }
        }, new DeploymentOptions().setInstances(2)).await(10, TimeUnit.SECONDS);
        return List.copyOf(contexts);
    }

    /** {@code left} writes to {@code key} one after another, each started from the answer of the last. */
    private static void writeChain(PgGuardedStore store, String key, AtomicInteger token, int left, String thread,
            List<String> answeredElsewhere, CompletableFuture<Void> finished) {
        if (left == 0) {
            finished.complete(null);
            return;
        }
        store.write(key, token.incrementAndGet(), "v".getBytes(StandardCharsets.UTF_8)).whenComplete((r, e) -> {
            if (e != null) {
                finished.completeExceptionally(e);
                return;
            }
            if (!Thread.currentThread().getName().equals(thread)) {
                answeredElsewhere.add(key + " answered on " + Thread.currentThread().getName());
            }
            writeChain(store, key, token, left - 1, thread, answeredElsewhere, finished);
        });
    }

    @Test
    void writesToOneKeyThroughTwoLanesGetAnswersOfOneSerialHistory() throws Exception {
        try (PgGuardedStore store = store(4, 2)) {
            List<Batch> batches = recordBatches(store);
            String p = UUID.randomUUID().toString().substring(0, 8) + "/";
            List<String> keys = List.of(p + "a", p + "b", p + "c");
            // Every write is sent from one of two event loops in turn, so both lanes take every key.
            OverlappingWriters.runAndCheck(new FromLoopsInTurn(store, twoEventLoops()), keys, 32, Duration.ofSeconds(3),
                    6_000);
            for (String k : keys) {
                Set<Integer> lanes = new HashSet<>();
                batches.stream().filter(b -> b.keys().contains(k)).forEach(b -> lanes.add(b.lane()));
                assertThat(lanes).as("lanes that wrote %s", k).containsExactly(0, 1);
            }
        }
    }

    /** The store, with each write sent from the next of {@code loops}, as requests from a gateway's loops are. */
    private record FromLoopsInTurn(PgGuardedStore store, List<Context> loops, AtomicInteger next) implements GuardedStore {
        FromLoopsInTurn(PgGuardedStore store, List<Context> loops) {
            this(store, loops, new AtomicInteger());
        }

        @Override
        public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
            CompletableFuture<WriteResult> answer = new CompletableFuture<>();
            loops.get(Math.floorMod(next.getAndIncrement(), loops.size())).runOnContext(v ->
                    store.write(key, token, value).whenComplete((r, e) -> {
                        if (e != null) {
                            answer.completeExceptionally(e);
                        } else {
                            answer.complete(r);
                        }
                    }));
            return answer;
        }

        @Override
        public CompletionStage<WriteResult> delete(String key, long token) {
            return store.delete(key, token);
        }

        @Override
        public CompletionStage<ReadResult> read(String key) {
            return store.read(key);
        }

        @Override
        public CompletionStage<ReadResult> fencedRead(String key, long token) {
            return store.fencedRead(key, token);
        }

        @Override
        public GuardRule rule() {
            return store.rule();
        }

        @Override
        public void close() {
            // the test closes the store
        }
    }
}
