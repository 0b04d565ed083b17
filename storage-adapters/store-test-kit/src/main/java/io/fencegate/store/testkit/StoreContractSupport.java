package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ReadResult;
import io.fencegate.store.StoreLimits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/**
 * What every theme of the store contract shares: the hooks a backend's test implements (stores on
 * an isolated namespace, its outage harness, a real issuer), keys under a random prefix per test,
 * resources closed after each test, and the assertions and races the themes use. A backend's test
 * extends {@link AbstractGuardedStoreContractTest}, the whole contract; the themes are
 * {@link GuardContract}, {@link FencedReadContract}, {@link ConcurrencyContract},
 * {@link OutageContract} and {@link ClaimContract}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class StoreContractSupport {
    /** A store with {@code rule} on the suite's backend and namespace. Closed by the suite. */
    protected abstract GuardedStore newStore(GuardRule rule) throws Exception;

    /**
     * A second, independent store on the same data: its own pool / connections / process-level
     * state, as another gateway or application instance would have. Closed by the suite.
     */
    protected abstract GuardedStore newIndependentStore(GuardRule rule) throws Exception;

    /** How to cut this adapter off its backend: a TCP proxy, or {@link OutageHarness#custom}. */
    protected abstract OutageHarness outageHarness();

    /** The store name {@link #newStore} and {@link #newIndependentStore} open their stores under. */
    protected abstract String storeName();

    /**
     * A store named {@code name} on the suite's backend and namespace: with a name other than
     * {@link #storeName()} the adapter must refuse to open it (the backend belongs to that store).
     */
    protected abstract GuardedStore newStoreNamed(String name, GuardRule rule) throws Exception;

    /** The limits the adapter enforces (the suite probes both sides of them). */
    protected StoreLimits limits() {
        return StoreLimits.DEFAULT;
    }

    /** How long an operation may take to fail once its backend is cut off. */
    protected Duration outageFailureBound() {
        return Duration.ofSeconds(15);
    }

    /**
     * The real issuer the counter test takes leases from, closed after the test: by default a
     * ZooKeeper issuer on an in-process ZooKeeper ({@code fencegate-issuer-zookeeper} and
     * {@code curator-test} on the test classpath). Override it for another; register what it
     * starts with {@link #closeAfter}.
     */
    protected LeaseIssuer newLeaseIssuer() throws Exception {
        return InProcessZooKeeperIssuer.start(this::closeAfter);
    }

    private final String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "/";
    private final TestResources resources = new TestResources();

    /** A key under this test's own random prefix. */
    protected String key(String name) {
        return prefix + name;
    }

    protected final <T extends AutoCloseable> T closeAfter(T resource) {
        return resources.add(resource);
    }

    protected final GuardedStore store(GuardRule rule) throws Exception {
        GuardedStore store = newStore(rule);
        assertThat(store.rule()).isEqualTo(rule);
        return closeAfter(store);
    }

    @AfterEach
    void closeResources() throws Exception {
        resources.closeAll();
    }

    // ---------------------------------------------------------------- helpers

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A value that names its token, so a read can check content and token belong together. */
    protected static byte[] valueFor(long token) {
        return bytes("written-with-" + token);
    }

    protected static void assertFound(ReadResult result, String value, long token, long fence) {
        assertThat(result).isInstanceOf(Found.class);
        Found found = (Found) result;
        assertThat(new String(found.value(), StandardCharsets.UTF_8)).isEqualTo(value);
        assertThat(found.token()).as("token").isEqualTo(token);
        assertThat(found.fence()).as("fence").isEqualTo(fence);
    }

    protected static int stock(ReadResult result) {
        assertThat(result).isInstanceOf(Found.class);
        return Integer.parseInt(new String(((Found) result).value(), StandardCharsets.UTF_8));
    }

    /** Runs {@code n} tasks at once (released together) and collects their results. */
    protected static <T> List<T> race(int n, java.util.function.IntFunction<Callable<T>> task) throws Exception {
        return race(n, n, task);
    }

    /** {@code threads} threads released together work off {@code tasks} tasks; results in any order. */
    protected static <T> List<T> race(int threads, int tasks, java.util.function.IntFunction<Callable<T>> task)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            ConcurrentLinkedQueue<T> results = new ConcurrentLinkedQueue<>();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                Callable<T> c = task.apply(i);
                futures.add(pool.submit(() -> {
                    start.await();
                    T r = c.call();
                    if (r != null) {
                        results.add(r);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(100, TimeUnit.SECONDS);
            }
            return new ArrayList<>(results);
        } finally {
            pool.shutdownNow();
        }
    }
}
