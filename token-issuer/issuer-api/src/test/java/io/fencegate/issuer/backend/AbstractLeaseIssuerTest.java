package io.fencegate.issuer.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What {@link AbstractLeaseIssuer} does for every backend, on a small in-memory backend that counts
 * the calls reaching it: refused and closed calls never reach the backend, and a "yes" from
 * {@code wasGranted} is asked once.
 */
class AbstractLeaseIssuerTest {

    private static final Duration TTL = Duration.ofSeconds(10);

    /** Locks in a map; ids are {@code mem.<token>}; tokens count up from 1 across locks. */
    private static class MemoryIssuer extends AbstractLeaseIssuer<Long> {
        final AtomicInteger backendCalls = new AtomicInteger();
        final AtomicInteger shutdowns = new AtomicInteger();
        final Map<Long, Lease> live = new ConcurrentHashMap<>();
        final Map<String, Long> granted = new ConcurrentHashMap<>();
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        long nextToken = 1;

        MemoryIssuer() {
            super("Memory", 16);
        }

        @Override
        protected synchronized CompletionStage<Optional<Lease>> grant(String lock, long ttlMs, Duration wait, long lockDelayMs) {
            backendCalls.incrementAndGet();
            if (live.values().stream().anyMatch(l -> l.lock().equals(lock))) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            long token = nextToken++;
            Lease lease = new Lease(lock, "mem." + token, token, System.currentTimeMillis() + ttlMs);
            live.put(token, lease);
            granted.put(lock + "#" + token, token);
            return CompletableFuture.completedFuture(Optional.of(lease));
        }

        @Override
        protected Optional<Long> parseLeaseId(String leaseId) {
            if (leaseId == null || !leaseId.matches("mem\\.[0-9]{1,18}")) {
                return Optional.empty();
            }
            return Optional.of(Long.parseLong(leaseId.substring(4)));
        }

        /** Renewing changes nothing here: leases do not expire. */
        @Override
        protected CompletionStage<Optional<Lease>> renewLease(String leaseId, Long token) {
            return findLease(leaseId, token);
        }

        @Override
        protected CompletionStage<Boolean> releaseLease(String leaseId, Long token) {
            backendCalls.incrementAndGet();
            return CompletableFuture.completedFuture(live.remove(token) != null);
        }

        @Override
        protected CompletionStage<Optional<Lease>> findLease(String leaseId, Long token) {
            backendCalls.incrementAndGet();
            return CompletableFuture.completedFuture(Optional.ofNullable(live.get(token)));
        }

        @Override
        protected CompletionStage<Boolean> isGranted(String lock, long token) {
            backendCalls.incrementAndGet();
            RuntimeException fail = failure.get();
            return fail != null ? CompletableFuture.failedFuture(fail)
                    : CompletableFuture.completedFuture(granted.containsKey(lock + "#" + token));
        }

        @Override
        protected CompletionStage<Boolean> isReleased(Lease lease) {
            backendCalls.incrementAndGet();
            return CompletableFuture.completedFuture(!live.containsKey(lease.token()));
        }

        @Override
        protected CompletionStage<LeasePage> listPage(String lockPrefix, String after, int limit) {
            backendCalls.incrementAndGet();
            return CompletableFuture.completedFuture(new LeasePage(List.of(), Optional.empty()));
        }

        @Override
        protected void shutdown() {
            shutdowns.incrementAndGet();
        }

        /** The backend learnt of a grant it made itself (as a transaction's answer tells). */
        void learnt(String lock, long token) {
            granted.put(lock + "#" + token, token);
            rememberGrant(lock, token);
        }
    }

    private final MemoryIssuer issuer = new MemoryIssuer();

    @Test
    void badArgumentsFailWithIllegalArgumentExceptionAndNeverReachTheBackend() {
        List<Supplier<? extends CompletionStage<?>>> calls = List.of(
                () -> issuer.acquire(null, TTL, Duration.ZERO),
                () -> issuer.acquire("", TTL, Duration.ZERO),
                () -> issuer.acquire("bad\uD800", TTL, Duration.ZERO),
                () -> issuer.acquire("x".repeat(4097), TTL, Duration.ZERO),
                () -> issuer.acquire("a", null, Duration.ZERO),
                () -> issuer.acquire("a", Duration.ZERO, Duration.ZERO),
                () -> issuer.acquire("a", Duration.ofNanos(999_999), Duration.ZERO),
                () -> issuer.acquire("a", Duration.ofMillis(-1), Duration.ZERO),
                () -> issuer.acquire("a", TTL, null),
                () -> issuer.acquire("a", TTL, Duration.ofMillis(-1)),
                () -> issuer.acquire("a", TTL, Duration.ZERO, null),
                () -> issuer.acquire("a", TTL, Duration.ZERO, Duration.ofMillis(-1)),
                () -> issuer.wasGranted(null, 1),
                () -> issuer.wasGranted("", 1),
                () -> issuer.list(null, null, 10),
                () -> issuer.list("", null, 0),
                () -> issuer.list("", null, LeaseIssuer.MAX_LIST_LIMIT + 1),
                () -> issuer.list("", "forged", 10));
        for (int i = 0; i < calls.size(); i++) {
            assertThat(failureOf(calls.get(i))).as("call #%d", i).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(issuer.backendCalls).as("calls that reached the backend").hasValue(0);
        assertThat(failureOf(() -> issuer.acquire("a", TTL, Duration.ZERO, Duration.ofSeconds(-1))))
                .hasMessage("lockDelay must be zero or positive, was PT-1S");
    }

    @Test
    void aClosedIssuerFailsEveryCallWithIssuerUnavailableAndShutsDownOnce() {
        Lease lease = done(issuer.acquire("a", TTL, Duration.ZERO)).orElseThrow();
        int before = issuer.backendCalls.get();
        issuer.close();
        issuer.close();
        assertThat(issuer.shutdowns).as("shutdowns").hasValue(1);
        List<Supplier<? extends CompletionStage<?>>> calls = List.of(
                () -> issuer.acquire("b", TTL, Duration.ZERO),
                () -> issuer.acquire("b", TTL, Duration.ofSeconds(1), Duration.ofSeconds(1)),
                () -> issuer.renew(lease.leaseId()),
                () -> issuer.renew("garbage"),
                () -> issuer.release(lease.leaseId()),
                () -> issuer.find(lease.leaseId()),
                () -> issuer.wasGranted("a", lease.token()),
                () -> issuer.wasGranted("a", -1),
                () -> issuer.wasReleased(lease),
                () -> issuer.list("", null, 10));
        for (int i = 0; i < calls.size(); i++) {
            assertThat(failureOf(calls.get(i))).as("call #%d", i).isInstanceOf(IssuerUnavailableException.class)
                    .hasMessage("Memory lease issuer is closed");
        }
        // Bad arguments are still told apart from a closed issuer: they are the caller's to fix.
        assertThat(failureOf(() -> issuer.acquire("", TTL, Duration.ZERO))).isInstanceOf(IllegalArgumentException.class);
        assertThat(issuer.backendCalls.get()).as("calls that reached the backend after close").isEqualTo(before);
    }

    @Test
    void aGrantedTokenIsAskedOnceAndANoEveryTime() {
        Lease lease = done(issuer.acquire("a", TTL, Duration.ZERO)).orElseThrow();
        int before = issuer.backendCalls.get();
        assertThat(done(issuer.wasGranted("a", lease.token()))).isTrue();
        assertThat(done(issuer.wasGranted("a", lease.token()))).isTrue();
        assertThat(issuer.backendCalls.get() - before).as("backend calls for two yes answers").isEqualTo(1);

        assertThat(done(issuer.wasGranted("b", lease.token()))).as("token of another lock").isFalse();
        assertThat(done(issuer.wasGranted("b", lease.token()))).isFalse();
        assertThat(issuer.backendCalls.get() - before).as("a no is never cached").isEqualTo(3);

        assertThat(done(issuer.wasGranted("a", 0))).isFalse();
        assertThat(done(issuer.wasGranted("a", Long.MIN_VALUE))).isFalse();
        assertThat(issuer.backendCalls.get() - before).as("tokens below 1 were never granted: no call").isEqualTo(3);
    }

    @Test
    void aGrantTheBackendRemembersNeedsNoCall() {
        issuer.learnt("a", 42);
        assertThat(done(issuer.wasGranted("a", 42))).isTrue();
        assertThat(issuer.backendCalls).hasValue(0);
    }

    @Test
    void aBackendFailureReachesTheCallerAsRaisedAndIsNotCached() {
        Lease lease = done(issuer.acquire("a", TTL, Duration.ZERO)).orElseThrow();
        IssuerUnavailableException down = new IssuerUnavailableException("backend down");
        issuer.failure.set(down);
        AtomicReference<Throwable> seen = new AtomicReference<>();
        issuer.wasGranted("a", lease.token()).whenComplete((granted, error) -> seen.set(error));
        assertThat(seen.get()).as("not wrapped").isSameAs(down);
        issuer.failure.set(null);
        assertThat(done(issuer.wasGranted("a", lease.token()))).isTrue();
    }

    @Test
    void anIdTheBackendCannotParseIsNoLeaseWithoutACall() {
        for (String garbage : new String[] {null, "", "mem.", "mem.x", "zk1.a.b", "%".repeat(5000)}) {
            assertThat(done(issuer.renew(garbage))).as("renew(%s)", garbage).isEmpty();
            assertThat(done(issuer.release(garbage))).as("release(%s)", garbage).isFalse();
            assertThat(done(issuer.find(garbage))).as("find(%s)", garbage).isEmpty();
        }
        assertThat(issuer.backendCalls).hasValue(0);
        Lease lease = done(issuer.acquire("a", TTL, Duration.ZERO)).orElseThrow();
        assertThat(done(issuer.find(lease.leaseId()))).contains(lease);
        assertThat(done(issuer.release(lease.leaseId()))).isTrue();
        assertThat(done(issuer.wasReleased(lease))).isTrue();
    }

    @Test
    void readLeasesAndPermitsFailClearlyOnABackendThatKeepsNoneAndWritesStillGo() {
        int before = issuer.backendCalls.get();
        assertThat(failureOf(() -> issuer.acquire("a", LeaseMode.READ, TTL, Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("does not support read leases yet");
        assertThat(failureOf(() -> issuer.acquirePermit("s", 2, TTL, Duration.ZERO)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("does not support semaphores yet");
        // Bad arguments first, as for every call.
        assertThat(failureOf(() -> issuer.acquire("a", null, TTL, Duration.ZERO, Duration.ZERO))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> issuer.acquirePermit("s", 0, TTL, Duration.ZERO))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> issuer.acquirePermit("s".repeat(4095), 10, TTL, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("semaphore name");
        assertThat(issuer.backendCalls.get()).isEqualTo(before);
        Lease lease = done(issuer.acquire("a", LeaseMode.WRITE, TTL, Duration.ZERO, Duration.ZERO)).orElseThrow();
        assertThat(lease.mode()).isEqualTo(LeaseMode.WRITE);
        assertThat(done(issuer.grantedMode("a", lease.token()))).as("a write-only backend's grants are writes").contains(LeaseMode.WRITE);
        assertThat(done(issuer.grantedMode("a", lease.token() + 100))).isEmpty();
    }

    /**
     * Fail closed: a backend that grants read leases but does not say so would have grantedMode call
     * every token a write, and a store would let a read token write. Its read acquires are refused.
     */
    @Test
    void aReadAcquireOnABackendThatDoesNotSayItGrantsReadLeasesIsRefusedUnasked() {
        AtomicInteger readGrants = new AtomicInteger();
        MemoryIssuer silent = new MemoryIssuer() {
            @Override
            protected CompletionStage<Optional<Lease>> grantRead(String lock, long ttlMs, Duration wait, long lockDelayMs) {
                readGrants.incrementAndGet();
                return grant(lock, ttlMs, wait, lockDelayMs);
            }
        };
        assertThat(failureOf(() -> silent.acquire("a", LeaseMode.READ, TTL, Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("read leases");
        assertThat(readGrants).as("the backend was never asked for a read lease").hasValue(0);
    }

    @Test
    void everyListenerHearsAnEndEvenAfterOneThrew() {
        List<String> heard = new ArrayList<>();
        issuer.addListener((lease, reason) -> {
            throw new IllegalStateException("a broken listener");
        });
        issuer.addListener((lease, reason) -> heard.add(lease.lock() + " " + reason));
        issuer.leaseEnded(new Lease("a", "mem.1", 1, 0), LeaseEnd.EXPIRED);
        assertThat(heard).containsExactly("a EXPIRED");
    }

    private static <T> T done(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static Throwable failureOf(Supplier<? extends CompletionStage<?>> call) {
        CompletableFuture<?> future = call.get().toCompletableFuture();
        assertThat(future).as("a failed stage").isCompletedExceptionally();
        AtomicReference<Throwable> error = new AtomicReference<>();
        future.whenComplete((value, e) -> error.set(e));
        return error.get();
    }
}
