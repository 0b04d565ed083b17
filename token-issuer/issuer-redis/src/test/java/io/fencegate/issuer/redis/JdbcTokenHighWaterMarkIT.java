package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.IssuerUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.ds.PGSimpleDataSource;

/** The SQL high-water mark on the real PostgreSQL and MariaDB: shared by instances on separate data sources. */
@Timeout(120)
class JdbcTokenHighWaterMarkIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @ParameterizedTest
    @EnumSource(MarkDatabase.Kind.class)
    void startsAtZeroOnlyGrowsAndIsSharedByInstances(MarkDatabase.Kind kind) throws Exception {
        try (MarkDatabase db = MarkDatabase.create(kind)) {
            JdbcTokenHighWaterMark a = new JdbcTokenHighWaterMark(db.dataSource(), "prefix-a:", TIMEOUT);
            JdbcTokenHighWaterMark b = new JdbcTokenHighWaterMark(db.dataSource(), "prefix-a:", TIMEOUT);
            assertThat(a.read()).isZero();
            assertThat(a.raise(0, 1000)).isEqualTo(1000);
            assertThat(b.read()).isEqualTo(1000);
            assertThat(b.raise(5000, 1000)).isEqualTo(6000);
            assertThat(a.raise(10, 1000)).isEqualTo(7000);
            assertThat(new JdbcTokenHighWaterMark(db.dataSource(), "prefix-b:", TIMEOUT).read())
                    .as("another prefix has a mark of its own").isZero();
            assertThatThrownBy(() -> a.raise(0, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> a.raise(Long.MAX_VALUE - 5, 10)).hasMessageContaining("exhausted");
            assertThat(b.read()).as("a refused raise changes nothing").isEqualTo(7000);
        }
    }

    @ParameterizedTest
    @EnumSource(MarkDatabase.Kind.class)
    void concurrentRaisesFromSeparateDataSourcesNeverOverlap(MarkDatabase.Kind kind) throws Exception {
        try (MarkDatabase db = MarkDatabase.create(kind)) {
            long block = 7;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<Long>>> futures = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    // A fresh data source and mark per thread: four "hosts".
                    JdbcTokenHighWaterMark mark = new JdbcTokenHighWaterMark(db.dataSource(), "shared:", TIMEOUT);
                    futures.add(pool.submit(() -> {
                        List<Long> ends = new ArrayList<>();
                        for (int i = 0; i < 40; i++) {
                            ends.add(mark.raise(0, block));
                        }
                        return ends;
                    }));
                }
                List<Long> ends = new ArrayList<>();
                for (Future<List<Long>> f : futures) {
                    ends.addAll(f.get(60, TimeUnit.SECONDS));
                }
                // Every raise reserved its own block (end - 7, end]: the ends are exactly 7, 14, ..., 160 * 7.
                assertThat(ends).doesNotHaveDuplicates().allMatch(end -> end % block == 0);
                assertThat(ends.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(160 * block);
                assertThat(new JdbcTokenHighWaterMark(db.dataSource(), "shared:", TIMEOUT).read()).isEqualTo(160 * block);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(MarkDatabase.Kind.class)
    void noRaiseRunsWhileTheMarkIsFrozen(MarkDatabase.Kind kind) throws Exception {
        try (MarkDatabase db = MarkDatabase.create(kind)) {
            JdbcTokenHighWaterMark freezer = new JdbcTokenHighWaterMark(db.dataSource(), "frozen:", TIMEOUT);
            JdbcTokenHighWaterMark raiser = new JdbcTokenHighWaterMark(db.dataSource(), "frozen:", TIMEOUT);
            freezer.raise(0, 100);
            CountDownLatch frozen = new CountDownLatch(1);
            CountDownLatch thaw = new CountDownLatch(1);
            CompletableFuture<Long> seen = CompletableFuture.supplyAsync(() -> freezer.whileFrozen(mark -> {
                frozen.countDown();
                try {
                    thaw.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return mark;
            }));
            assertThat(frozen.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Long> raised = CompletableFuture.supplyAsync(() -> raiser.raise(0, 5));
            Thread.sleep(500);
            assertThat(raised).as("a raise waits for the frozen mark").isNotDone();
            thaw.countDown();
            assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(100);
            assertThat(raised.get(10, TimeUnit.SECONDS)).isEqualTo(105);
        }
    }

    @Test
    void anUnreachableDatabaseIsAClearBoundedFailure() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setURL("jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2");
        nowhere.setUser("postgres");
        JdbcTokenHighWaterMark mark = new JdbcTokenHighWaterMark(nowhere, "x:", TIMEOUT);
        long start = System.nanoTime();
        assertThatThrownBy(() -> mark.raise(0, 10)).isInstanceOf(IssuerUnavailableException.class)
                .hasMessageContaining("token high-water mark");
        assertThatThrownBy(mark::read).isInstanceOf(IssuerUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }
}
