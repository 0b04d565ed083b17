package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of read-write leases ({@link LeaseIssuer#acquire(String, LeaseMode, Duration, Duration, Duration)}):
 * readers share and a writer excludes them, every grant's token lies above every earlier grant's of
 * the lock whatever its mode, a waiting writer is not starved by readers, an expired read lease
 * frees its place, renew and release by id from any instance, and under concurrency no writer ever
 * holds with a reader. Only issuers that keep read leases extend it: it does not skip.
 */
public abstract class ReadWriteContract extends IssuerContractSupport {

    protected final Optional<Lease> tryAcquire(LeaseIssuer issuer, String lock, LeaseMode mode, Duration wait) throws Exception {
        return await(issuer.acquire(lock, mode, LONG_TTL, wait, Duration.ZERO));
    }

    protected final Lease held(LeaseIssuer issuer, String lock, LeaseMode mode, Duration ttl) throws Exception {
        Lease lease = await(issuer.acquire(lock, mode, ttl, Duration.ZERO, Duration.ZERO))
                .orElseThrow(() -> new AssertionError(mode + " lease on " + lock + " refused"));
        assertThat(lease.mode()).isEqualTo(mode);
        assertThat(lease.isPermit()).isFalse();
        return lease;
    }

    @Test
    void readersShareTheLockAndAWriterExcludesThemAcrossInstances() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-share");
        Lease r1 = held(a, lock, LeaseMode.READ, LONG_TTL);
        Lease r2 = held(b, lock, LeaseMode.READ, LONG_TTL);
        assertThat(r2.token()).isGreaterThan(r1.token());
        assertThat(tryAcquire(b, lock, LeaseMode.WRITE, Duration.ZERO)).as("write while read-held").isEmpty();
        assertThat(tryAcquire(a, lock, LeaseMode.WRITE, Duration.ofMillis(300))).as("held after the wait").isEmpty();
        assertThat(await(a.acquire(lock, LONG_TTL, Duration.ZERO))).as("the plain acquire is a write").isEmpty();
        List<LeaseInfo> listed = await(b.list(lock, null, 10)).leases();
        assertThat(listed).extracting(LeaseInfo::mode).containsExactly(LeaseMode.READ, LeaseMode.READ);
        assertThat(listed).extracting(LeaseInfo::token).containsExactlyInAnyOrder(r1.token(), r2.token());

        assertThat(await(b.release(r1.leaseId()))).isTrue();
        assertThat(tryAcquire(a, lock, LeaseMode.WRITE, Duration.ZERO)).as("one reader left").isEmpty();
        assertThat(await(a.release(r2.leaseId()))).isTrue();
        Lease w = held(b, lock, LeaseMode.WRITE, LONG_TTL);
        assertThat(w.token()).isGreaterThan(r2.token());
        assertThat(tryAcquire(a, lock, LeaseMode.READ, Duration.ZERO)).as("read while write-held").isEmpty();
        assertThat(tryAcquire(b, lock, LeaseMode.READ, Duration.ofMillis(300))).as("read held after the wait").isEmpty();
        assertThat(await(a.list(lock, null, 10)).leases()).extracting(LeaseInfo::mode).containsExactly(LeaseMode.WRITE);
        assertThat(await(a.release(w.leaseId()))).isTrue();
    }

    @Test
    void everyGrantsTokenIsAboveEveryEarlierGrantsWhateverItsModeAndItsModeIsKnown() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-tokens");
        List<Lease> grants = new ArrayList<>();
        grants.add(held(a, lock, LeaseMode.WRITE, LONG_TTL));
        await(a.release(grants.get(0).leaseId()));
        grants.add(held(b, lock, LeaseMode.READ, LONG_TTL));
        grants.add(held(a, lock, LeaseMode.READ, LONG_TTL));
        await(a.release(grants.get(1).leaseId()));
        grants.add(held(b, lock, LeaseMode.READ, LONG_TTL));
        await(b.release(grants.get(2).leaseId()));
        await(b.release(grants.get(3).leaseId()));
        grants.add(held(b, lock, LeaseMode.WRITE, LONG_TTL));
        for (int i = 1; i < grants.size(); i++) {
            assertThat(grants.get(i).token()).as("grant %d", i).isGreaterThan(grants.get(i - 1).token());
        }
        for (Lease lease : grants) {
            for (LeaseIssuer issuer : List.of(a, b)) {
                assertThat(await(issuer.grantedMode(lock, lease.token()))).as("mode of %s", lease.token()).contains(lease.mode());
                assertThat(await(issuer.wasGranted(lock, lease.token()))).isTrue();
            }
        }
        LeaseIssuer fresh = issuer(); // nothing cached: the backend itself must know each mode
        for (Lease lease : grants) {
            assertThat(await(fresh.grantedMode(lock, lease.token()))).as("mode of %s", lease.token()).contains(lease.mode());
        }
        assertThat(await(fresh.grantedMode(lock, grants.get(4).token() + 1))).isEmpty();
        assertThat(await(fresh.grantedMode(lock("rw-other"), grants.get(1).token()))).isEmpty();
        assertThat(await(fresh.grantedMode(lock, 0))).isEmpty();
    }

    @Test
    void aWaitingWriterGetsTheLockFromAStreamOfReaders() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-starve");
        Lease first = held(a, lock, LeaseMode.READ, LONG_TTL);
        CompletableFuture<Optional<Lease>> writer =
                b.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO).toCompletableFuture();
        // A stream of readers: each new one would overlap the last. Once the writer waits, every new
        // reader must queue behind it (a zero wait answers empty), or the writer starves.
        List<Lease> readers = new ArrayList<>(List.of(first));
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            Optional<Lease> next = tryAcquire(a, lock, LeaseMode.READ, Duration.ZERO);
            next.ifPresent(readers::add);
            if (readers.size() > 1) {
                Lease oldest = readers.remove(0); // the stream goes on: the oldest reader leaves
                await(a.release(oldest.leaseId()));
            }
            return next.isEmpty();
        });
        assertThat(writer).as("still waiting for the readers in").isNotDone();
        for (Lease reader : readers) {
            assertThat(await(a.release(reader.leaseId()))).isTrue();
        }
        Lease w = await(writer).orElseThrow(() -> new AssertionError("the writer starved"));
        assertThat(w.token()).isGreaterThan(readers.get(readers.size() - 1).token());
        CompletableFuture<Optional<Lease>> reader =
                a.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO).toCompletableFuture();
        Thread.sleep(300);
        assertThat(reader).as("a reader waits for the writer").isNotDone();
        assertThat(await(b.release(w.leaseId()))).isTrue();
        assertThat(await(reader).orElseThrow().token()).isGreaterThan(w.token());
    }

    @Test
    void aReadLeaseThatExpiresWhileItsHolderIsPausedFreesItsPlaceForAHigherToken() throws Exception {
        LeaseIssuer paused = issuer();
        List<LeaseEnd> ended = endsHeardBy(paused);
        LeaseIssuer other = issuer();
        String lock = lock("rw-expire");
        Lease stale = held(paused, lock, LeaseMode.READ, Duration.ofMillis(1500));
        // The holder never renews: the writer waits out the read lease, not a release.
        Lease w = tryAcquire(other, lock, LeaseMode.WRITE, Duration.ofSeconds(30))
                .orElseThrow(() -> new AssertionError("the expired read lease kept its place"));
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(stale.expiresAt() - 100);
        assertThat(w.token()).isGreaterThan(stale.token());
        assertThat(await(paused.renew(stale.leaseId()))).as("renew after expiry").isEmpty();
        assertThat(await(paused.release(stale.leaseId()))).as("release after expiry").isFalse();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ended.contains(LeaseEnd.EXPIRED));
        assertThat(await(other.wasReleased(stale))).isFalse();
    }

    @Test
    void aReadLeaseIsRenewedFoundAndReleasedByIdFromAnyInstanceAndByNoOneElse() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-renew");
        Lease lease = held(a, lock, LeaseMode.READ, Duration.ofSeconds(4));
        assertThat(a.lockOf(lease.leaseId())).contains(lock);
        Thread.sleep(1_000);
        Lease renewed = await(b.renew(lease.leaseId())).orElseThrow(() -> new AssertionError("renew refused"));
        assertThat(renewed.mode()).isEqualTo(LeaseMode.READ);
        assertThat(renewed.token()).isEqualTo(lease.token());
        assertThat(renewed.expiresAt()).isGreaterThan(lease.expiresAt());
        assertThat(await(b.find(lease.leaseId()))).get().extracting(Lease::mode).isEqualTo(LeaseMode.READ);
        assertThat(await(b.renew(tampered(lease.leaseId())))).isEmpty();
        assertThat(await(b.release(tampered(lease.leaseId())))).isFalse();
        assertThat(await(b.release(lease.leaseId()))).isTrue();
        assertThat(await(a.release(lease.leaseId()))).isFalse();
        assertThat(await(a.renew(lease.leaseId()))).isEmpty();
        assertThat(await(a.find(lease.leaseId()))).isEmpty();
        assertThat(await(a.wasReleased(lease))).isTrue();
        assertThat(held(b, lock, LeaseMode.WRITE, LONG_TTL).token()).isGreaterThan(lease.token());
    }

    @Test
    void crossingModesWaitersAreServedAtTheRelease() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-cross");
        Lease w = held(a, lock, LeaseMode.WRITE, LONG_TTL);
        CompletableFuture<Optional<Lease>> r1 = b.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO)
                .toCompletableFuture();
        CompletableFuture<Optional<Lease>> r2 = a.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO)
                .toCompletableFuture();
        Thread.sleep(300);
        assertThat(r1).isNotDone();
        assertThat(await(a.release(w.leaseId()))).isTrue();
        Lease read1 = await(r1).orElseThrow();
        Lease read2 = await(r2).orElseThrow();
        assertThat(List.of(read1.token(), read2.token())).allMatch(t -> t > w.token());
        CompletableFuture<Optional<Lease>> w2 = b.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO)
                .toCompletableFuture();
        assertThat(await(b.release(read1.leaseId()))).isTrue();
        Thread.sleep(300);
        assertThat(w2).as("one reader is still in").isNotDone();
        assertThat(await(b.release(read2.leaseId()))).isTrue();
        assertThat(await(w2).orElseThrow().token()).isGreaterThan(Math.max(read1.token(), read2.token()));
    }

    @Test
    void readersQueuedBehindAWriterThatGivesUpAreLetIn() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-giveup");
        Lease first = held(a, lock, LeaseMode.READ, LONG_TTL);
        CompletableFuture<Optional<Lease>> writer =
                b.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ofSeconds(3), Duration.ZERO).toCompletableFuture();
        Thread.sleep(300); // the writer waits: a reader that comes now queues behind it
        CompletableFuture<Optional<Lease>> reader =
                a.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO).toCompletableFuture();
        assertThat(await(writer)).as("the reader stayed in: the writer's wait ran out").isEmpty();
        // The writer left the line: the reader behind it must not wait for a writer that is gone.
        Lease second = await(reader).orElseThrow(() -> new AssertionError("a reader stayed behind a writer that gave up"));
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(await(b.list(lock, null, 10)).leases()).extracting(LeaseInfo::mode).containsExactly(LeaseMode.READ, LeaseMode.READ);
        // And the other order: a write lease in, a reader waiting, a writer behind it; both in, in turn.
        assertThat(await(a.release(first.leaseId()))).isTrue();
        assertThat(await(a.release(second.leaseId()))).isTrue();
        Lease w = held(b, lock, LeaseMode.WRITE, LONG_TTL);
        CompletableFuture<Optional<Lease>> r = a.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO)
                .toCompletableFuture();
        Thread.sleep(300);
        CompletableFuture<Optional<Lease>> w2 = b.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ofSeconds(60), Duration.ZERO)
                .toCompletableFuture();
        Thread.sleep(300);
        assertThat(await(b.release(w.leaseId()))).isTrue();
        // A FIFO issuer lets the reader in first; one that prefers writers without a queue (Redis) may
        // let the writer in first. Either way one at a time, each above the last.
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> r.isDone() || w2.isDone());
        boolean readerFirst = r.isDone();
        Lease firstIn = await(readerFirst ? r : w2).orElseThrow(() -> new AssertionError("a waiter got nothing at the release"));
        CompletableFuture<Optional<Lease>> other = readerFirst ? w2 : r;
        Thread.sleep(300);
        assertThat(other).as("a %s beside a %s", readerFirst ? "writer" : "reader", firstIn.mode()).isNotDone();
        assertThat(firstIn.token()).isGreaterThan(w.token());
        assertThat(await((readerFirst ? a : b).release(firstIn.leaseId()))).isTrue();
        assertThat(await(other).orElseThrow().token()).isGreaterThan(firstIn.token());
    }

    @Test
    void aNullModeIsRefused() throws Exception {
        LeaseIssuer issuer = issuer();
        assertThat(failureOf(() -> issuer.acquire(lock("rw-bad"), null, LONG_TTL, Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mode");
        assertThat(failureOf(() -> issuer.acquire(lock("rw-bad"), LeaseMode.READ, Duration.ZERO, Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
    }

    /** Threads in {@link #concurrentReadersAndWritersNeverOverlap} (half through each instance). */
    protected int readWriteThreads() {
        return 4;
    }

    /** Acquisitions per thread in {@link #concurrentReadersAndWritersNeverOverlap}. */
    protected int readWriteRounds() {
        return 20;
    }

    @Test
    @Timeout(600)
    void concurrentReadersAndWritersNeverOverlap() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-stress");
        ModeOrder order = new ModeOrder();
        ExecutorService pool = Executors.newFixedThreadPool(readWriteThreads());
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < readWriteThreads(); t++) {
                LeaseIssuer issuer = t % 2 == 0 ? a : b;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < readWriteRounds() && order.violations().isEmpty(); i++) {
                        LeaseMode mode = ThreadLocalRandom.current().nextInt(3) == 0 ? LeaseMode.WRITE : LeaseMode.READ;
                        Lease lease = tryAcquire(issuer, lock, mode, Duration.ofSeconds(60))
                                .orElseThrow(() -> new AssertionError("no " + mode + " lease within 60 s"));
                        order.granted(lease);
                        Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                        order.releasing(lease);
                        if (!await(issuer.release(lease.leaseId()))) {
                            order.violation("release of a live " + mode + " lease answered false");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(590, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(order.violations()).isEmpty();
        assertThat(order.grants()).isEqualTo(readWriteThreads() * readWriteRounds());
    }
}
