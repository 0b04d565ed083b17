package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LockNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract every {@link LeaseIssuer} backend must keep, run against the real backend.
 *
 * <p>A backend's test extends this class and implements {@link #newIssuer()}; the suite may call
 * it more than once per test to get independent issuer instances on the same backend (as two
 * gateways would be), and closes every issuer it got after each test. Lock names are unique per
 * test, so backends need no cleanup between tests beyond what they do for their own state.
 */
@Timeout(120)
public abstract class AbstractLeaseIssuerContractTest {

    /** A long ttl for leases that must not expire during a test. */
    protected static final Duration LONG_TTL = Duration.ofSeconds(30);

    private final List<LeaseIssuer> issuers = new CopyOnWriteArrayList<>();
    private final String testRun = UUID.randomUUID().toString().substring(0, 8);

    /** A new issuer instance on this test's backend. The suite closes it. */
    protected abstract LeaseIssuer newIssuer() throws Exception;

    /** How long a single call may take before the test gives up on it. */
    protected Duration callTimeout() {
        return Duration.ofSeconds(20);
    }

    /** Threads in {@link #concurrentAcquisitionsNeverOverlapAndTokensStrictlyIncreasePerLock}. */
    protected int concurrentThreads() {
        return 8;
    }

    /** Acquisitions per thread in the concurrency test. */
    protected int acquisitionsPerThread() {
        return 200;
    }

    @AfterEach
    void closeIssuers() {
        for (LeaseIssuer issuer : issuers) {
            try {
                issuer.close();
            } catch (RuntimeException e) {
                // Closing twice or after a backend was stopped is not what this suite tests.
            }
        }
        issuers.clear();
    }

    // ---------------------------------------------------------------- helpers for subclasses

    /** A new issuer, closed after the test. */
    protected final LeaseIssuer issuer() throws Exception {
        LeaseIssuer issuer = newIssuer();
        issuers.add(issuer);
        return issuer;
    }

    /** A lock name unique to this test run. */
    protected final String lock(String name) {
        return "contract/" + testRun + "/" + name + "/" + UUID.randomUUID().toString().substring(0, 8);
    }

    protected final <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(callTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    protected final Lease acquired(LeaseIssuer issuer, String lock, Duration ttl) throws Exception {
        Optional<Lease> lease = await(issuer.acquire(lock, ttl, Duration.ZERO));
        assertThat(lease).as("lease on free lock %s", lock).isPresent();
        return lease.orElseThrow();
    }

    /** The exception a call failed with, synchronously or through its stage; fails if none. */
    protected final Throwable failureOf(Supplier<? extends CompletionStage<?>> call) {
        CompletionStage<?> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            return e;
        }
        try {
            stage.toCompletableFuture().get(callTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        return fail("expected the call to fail, it succeeded");
    }

    /** What {@code issuer}'s listener hears from now on: the reasons of leases that ended unannounced. */
    private static List<LeaseEnd> endsHeardBy(LeaseIssuer issuer) {
        List<LeaseEnd> ended = new CopyOnWriteArrayList<>();
        issuer.addListener((lease, reason) -> ended.add(reason));
        return ended;
    }

    private static String tampered(String leaseId) {
        char last = leaseId.charAt(leaseId.length() - 1);
        return leaseId.substring(0, leaseId.length() - 1) + (last == '0' ? '1' : '0');
    }

    // ---------------------------------------------------------------- watching a lease (find, wasReleased)

    @Test
    void anyInstanceFindsALiveLeaseWithItsCurrentExpiryAndTellsAReleaseFromAnExpiry() throws Exception {
        LeaseIssuer granting = issuer();
        LeaseIssuer watching = issuer();
        Lease released = acquired(granting, lock("find-released"), LONG_TTL);
        Lease found = await(watching.find(released.leaseId())).orElseThrow();
        assertThat(found.token()).isEqualTo(released.token());
        assertThat(found.lock()).isEqualTo(released.lock());
        Lease renewed = await(granting.renew(released.leaseId())).orElseThrow();
        assertThat(await(watching.find(released.leaseId())).orElseThrow().expiresAt())
                .isBetween(renewed.expiresAt() - 1000, renewed.expiresAt() + 1000);
        assertThat(await(granting.release(released.leaseId()))).isTrue();
        assertThat(await(watching.find(released.leaseId()))).isEmpty();
        assertThat(await(watching.wasReleased(released))).isTrue();

        Lease expired = acquired(granting, lock("find-expired"), Duration.ofMillis(300));
        Thread.sleep(600);
        assertThat(await(watching.find(expired.leaseId()))).isEmpty();
        assertThat(await(watching.wasReleased(expired))).isFalse();

        assertThat(await(watching.find(tampered(expired.leaseId())))).isEmpty();
        assertThat(await(watching.find("not-a-lease-id"))).isEmpty();
    }

    // ---------------------------------------------------------------- lock-delay

    @Test
    void afterAnExpiryTheLockDelayKeepsTheLockFromEveryInstanceUntilItPassed() throws Exception {
        LeaseIssuer granting = issuer();
        LeaseIssuer other = issuer();
        String lock = lock("delay-expired");
        Duration delay = Duration.ofMillis(1500);
        Lease first = await(granting.acquire(lock, Duration.ofMillis(400), Duration.ZERO, delay)).orElseThrow();
        // Renewed once, so the delay counts from the renewed expiry, not the first.
        Lease renewed = await(granting.renew(first.leaseId())).orElseThrow();
        while (System.currentTimeMillis() < renewed.expiresAt() + 200) {
            Thread.sleep(50);
        }
        assertThat(await(other.acquire(lock, LONG_TTL, Duration.ZERO))).as("expired, but within the delay").isEmpty();
        Lease next = await(other.acquire(lock, LONG_TTL, Duration.ofSeconds(10))).orElseThrow();
        long grantedAt = System.currentTimeMillis();
        assertThat(grantedAt).as("granted no earlier than expiry + delay")
                .isGreaterThanOrEqualTo(renewed.expiresAt() + delay.toMillis() - 50);
        // Liveness, not safety: on ZooKeeper the granting instance deletes the expired node on its own
        // timer, late when its machine is busy (one full run on a loaded 2-core box: 4.6 s after).
        assertThat(grantedAt).as("and not much later").isLessThan(renewed.expiresAt() + delay.toMillis() + 6000);
        assertThat(next.token()).isGreaterThan(first.token());
        assertThat(await(other.release(next.leaseId()))).isTrue();
        assertThat(await(granting.acquire(lock, LONG_TTL, Duration.ZERO))).as("a release leaves no delay").isPresent();
    }

    @Test
    void aReleaseFreesALockWithALockDelayAtOnce() throws Exception {
        LeaseIssuer granting = issuer();
        LeaseIssuer other = issuer();
        String lock = lock("delay-released");
        Lease first = await(granting.acquire(lock, Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(30)))
                .orElseThrow();
        assertThat(await(granting.renew(first.leaseId()))).isPresent();
        assertThat(await(granting.release(first.leaseId()))).isTrue();
        Optional<Lease> next = await(other.acquire(lock, LONG_TTL, Duration.ZERO));
        assertThat(next).as("granted at once after a release, through another instance").isPresent();
        assertThat(await(other.release(next.get().leaseId()))).isTrue();
    }

    @Test
    void aNegativeLockDelayIsRefused() throws Exception {
        LeaseIssuer issuer = issuer();
        assertThat(failureOf(() -> issuer.acquire(lock("delay-bad"), LONG_TTL, Duration.ZERO, Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockDelay");
    }

    // ---------------------------------------------------------------- listing

    @Test
    void aListingShowsEveryInstancesLiveLeasesUnderAPrefixPagedInLockOrder() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String prefix = lock("list") + "/";
        List<Lease> live = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            live.add(acquired(i % 2 == 0 ? a : b, prefix + "k" + i, LONG_TTL));
        }
        Lease released = acquired(a, prefix + "released", LONG_TTL);
        assertThat(await(a.release(released.leaseId()))).isTrue();
        acquired(a, prefix + "expired", Duration.ofMillis(200));
        acquired(a, lock("elsewhere"), LONG_TTL);
        Thread.sleep(400);

        List<io.fencegate.issuer.LeaseInfo> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            io.fencegate.issuer.LeasePage page = await(b.list(prefix, cursor, 2));
            assertThat(page.leases().size()).isLessThanOrEqualTo(2);
            seen.addAll(page.leases());
            cursor = page.next().orElse(null);
            assertThat(++pages).as("pages end").isLessThan(20);
        } while (cursor != null);

        assertThat(seen).extracting(io.fencegate.issuer.LeaseInfo::lock)
                .containsExactly(live.stream().map(Lease::lock).toArray(String[]::new));
        for (int i = 0; i < live.size(); i++) {
            assertThat(seen.get(i).token()).isEqualTo(live.get(i).token());
            assertThat(seen.get(i).expiresAt()).isBetween(live.get(i).expiresAt() - 2000, live.get(i).expiresAt() + 2000);
            assertThat(seen.get(i).grantedBy()).as("the granting instance is named").isNotEmpty();
        }
        assertThat(await(a.list(prefix + "nothing-here/", null, 10)).leases()).isEmpty();
        assertThat(failureOf(() -> a.list(prefix, null, 0))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> a.list(prefix, null, LeaseIssuer.MAX_LIST_LIMIT + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> a.list(prefix, "forged", 10))).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------- mutual exclusion, tokens

    @Test
    @Timeout(600)
    void concurrentAcquisitionsNeverOverlapAndTokensStrictlyIncreasePerLock() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<String> locks = List.of(lock("c0"), lock("c1"), lock("c2"), lock("c3"));
        GrantOrder grants = new GrantOrder();
        int threads = concurrentThreads();
        int rounds = acquisitionsPerThread();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                // Half the threads go through each instance: exclusion must hold across instances.
                LeaseIssuer issuer = t % 2 == 0 ? a : b;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < rounds && grants.violations().isEmpty(); i++) {
                        String lock = locks.get(ThreadLocalRandom.current().nextInt(locks.size()));
                        Lease lease = await(issuer.acquire(lock, LONG_TTL, Duration.ofSeconds(60)))
                                .orElseThrow(() -> new AssertionError("no lease on " + lock + " within 60 s"));
                        grants.granted(lock, lease);
                        if (ThreadLocalRandom.current().nextInt(4) == 0) {
                            Thread.onSpinWait();
                            Thread.yield();
                        }
                        grants.releasing(lock);
                        if (!await(issuer.release(lease.leaseId()))) {
                            grants.violation("release of a live lease answered false on " + lock);
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
        assertThat(grants.violations()).isEmpty();
        int total = 0;
        for (String lock : locks) {
            List<Long> tokens = grants.tokens(lock);
            total += tokens.size();
            assertThat(tokens).as("tokens of %s", lock).doesNotHaveDuplicates().isSorted();
            assertThat(tokens).allMatch(token -> token > 0);
        }
        assertThat(total).isEqualTo(threads * rounds);
    }

    @Test
    void releaseThenReacquireGivesLargerTokenEachTime() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("cycle");
        long previous = 0;
        for (int i = 0; i < 6; i++) {
            LeaseIssuer issuer = i % 2 == 0 ? a : b;
            Lease lease = acquired(issuer, lock, LONG_TTL);
            assertThat(lease.lock()).isEqualTo(lock);
            assertThat(lease.token()).isGreaterThan(previous);
            assertThat(lease.expiresAt()).isGreaterThan(System.currentTimeMillis());
            previous = lease.token();
            assertThat(await(issuer.release(lease.leaseId()))).isTrue();
        }
    }

    @Test
    void lockNamesWithSlashesUnicodeAndTwoKibAreDistinctLocks() throws Exception {
        LeaseIssuer issuer = issuer();
        String base = lock("names");
        List<String> names = List.of(
                base + "/store/docs/2026/report.txt",
                base + "/store/docs/2026",
                base + "/ünïcødé/日本語/🔒",
                base + "/" + "x".repeat(2048 - base.length() - 1),
                base + "/with spaces and %2F and .. and ."
        );
        List<Lease> leases = new ArrayList<>();
        for (String name : names) {
            Lease lease = acquired(issuer, name, LONG_TTL);
            assertThat(lease.lock()).isEqualTo(name);
            leases.add(lease);
        }
        for (int i = 0; i < names.size(); i++) {
            assertThat(await(issuer.acquire(names.get(i), LONG_TTL, Duration.ZERO))).as(names.get(i)).isEmpty();
            assertThat(await(issuer.wasGranted(names.get(i), leases.get(i).token()))).isTrue();
            assertThat(await(issuer.release(leases.get(i).leaseId()))).isTrue();
        }
    }

    // ---------------------------------------------------------------- waiting

    /** A lock whose lease {@code held} issuer {@code a} granted, and a second issuer {@code b} on the same backend. */
    private record HeldLock(LeaseIssuer a, LeaseIssuer b, String lock, Lease held) { }

    private HeldLock heldLock(String name) throws Exception {
        LeaseIssuer a = issuer();
        String lock = lock(name);
        return new HeldLock(a, issuer(), lock, acquired(a, lock, LONG_TTL));
    }

    @Test
    void zeroWaitOnHeldLockAnswersEmptyPromptly() throws Exception {
        HeldLock h = heldLock("held");
        long start = System.nanoTime();
        assertThat(await(h.b().acquire(h.lock(), LONG_TTL, Duration.ZERO))).isEmpty();
        assertThat(await(h.a().acquire(h.lock(), LONG_TTL, Duration.ZERO))).as("not reentrant").isEmpty();
        // Generous bound: "promptly" means it did not wait for the ttl or a default wait.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(await(h.a().renew(h.held().leaseId()))).as("refused acquire left the holder alone").isPresent();
    }

    @Test
    void waiterGetsTheLockWhenTheHolderReleases() throws Exception {
        HeldLock h = heldLock("wait");
        CompletableFuture<Optional<Lease>> waiter =
                h.b().acquire(h.lock(), LONG_TTL, Duration.ofSeconds(30)).toCompletableFuture();
        Thread.sleep(300);
        assertThat(waiter).as("still waiting while held").isNotDone();
        assertThat(await(h.a().release(h.held().leaseId()))).isTrue();
        Lease next = await(waiter).orElseThrow();
        assertThat(next.token()).isGreaterThan(h.held().token());
        assertThat(await(h.b().release(next.leaseId()))).isTrue();
    }

    @Test
    void waitRunningOutAnswersEmptyAndLeavesNoTraceInTheQueue() throws Exception {
        HeldLock h = heldLock("timeout");
        long start = System.nanoTime();
        assertThat(await(h.b().acquire(h.lock(), LONG_TTL, Duration.ofMillis(500)))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(await(h.a().release(h.held().leaseId()))).isTrue();
        // The timed-out waiter must not hold a place in line: the lock is free at once.
        Lease next = acquired(h.a(), h.lock(), LONG_TTL);
        assertThat(next.token()).isGreaterThan(h.held().token());
    }

    // ---------------------------------------------------------------- expiry and renew

    @Test
    void unrenewedLeaseExpiresTellsListenerAndNextHolderGetsLargerToken() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<Map.Entry<Lease, LeaseEnd>> ended = new CopyOnWriteArrayList<>();
        a.addListener((lease, reason) -> ended.add(Map.entry(lease, reason)));
        String lock = lock("expire");
        Lease old = acquired(a, lock, Duration.ofMillis(500));
        assertThat(old.expiresAt()).isLessThanOrEqualTo(System.currentTimeMillis() + 500);

        Lease next = await(b.acquire(lock, LONG_TTL, Duration.ofSeconds(15)))
                .orElseThrow(() -> new AssertionError("lease did not expire within 15 s"));
        assertThat(next.token()).isGreaterThan(old.token());
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(old.expiresAt());

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ended.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ended).hasSize(1);
        assertThat(ended.get(0).getKey().leaseId()).isEqualTo(old.leaseId());
        assertThat(ended.get(0).getKey().token()).isEqualTo(old.token());
        assertThat(ended.get(0).getValue()).isEqualTo(LeaseEnd.EXPIRED);

        assertThat(await(a.renew(old.leaseId()))).as("renew after expiry").isEmpty();
        assertThat(await(a.release(old.leaseId()))).as("release after expiry").isFalse();
        assertThat(await(b.renew(next.leaseId()))).as("new holder unaffected").isPresent();
    }

    @Test
    void renewExtendsExpiryAndKeepsTheLeasePastItsFirstTtl() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<LeaseEnd> ended = endsHeardBy(a);
        String lock = lock("renew");
        // Renew every 200 ms with a 1.2 s ttl: a busy machine may delay a renew by a second.
        Duration ttl = Duration.ofMillis(1_200);
        Lease lease = acquired(a, lock, ttl);
        long end = System.currentTimeMillis() + 2_000;
        Lease last = lease;
        while (System.currentTimeMillis() < end) {
            Thread.sleep(200);
            Lease renewed = await(a.renew(lease.leaseId())).orElseThrow(() -> new AssertionError("renew refused"));
            assertThat(renewed.leaseId()).isEqualTo(lease.leaseId());
            assertThat(renewed.token()).isEqualTo(lease.token());
            assertThat(renewed.lock()).isEqualTo(lock);
            assertThat(renewed.expiresAt()).isGreaterThan(last.expiresAt());
            last = renewed;
        }
        assertThat(System.currentTimeMillis()).isGreaterThan(lease.expiresAt());
        assertThat(await(b.acquire(lock, LONG_TTL, Duration.ZERO))).as("still held thanks to renew").isEmpty();
        assertThat(await(a.release(lease.leaseId()))).isTrue();
        assertThat(ended).isEmpty();
    }

    // ---------------------------------------------------------------- whose lease

    @Test
    void someoneElsesOrGarbageLeaseIdIsRefused() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("foreign");
        Lease first = acquired(a, lock, LONG_TTL);
        assertThat(await(a.release(first.leaseId()))).isTrue();
        Lease current = acquired(b, lock, LONG_TTL);

        // The previous holder's id does not touch the current holder's lease.
        assertThat(await(a.renew(first.leaseId()))).isEmpty();
        assertThat(await(a.release(first.leaseId()))).isFalse();
        // Nor does a forged id that differs from the real one in its last character.
        String forged = tampered(current.leaseId());
        assertThat(await(a.renew(forged))).isEmpty();
        assertThat(await(b.release(forged))).isFalse();
        for (String garbage : List.of("", "garbage", "::", "a.b.c", "/fencegate/locks/x",
                UUID.randomUUID().toString(), "%".repeat(5000))) {
            assertThat(await(a.renew(garbage))).as("renew(%s)", garbage).isEmpty();
            assertThat(await(a.release(garbage))).as("release(%s)", garbage).isFalse();
        }
        assertThat(await(b.renew(current.leaseId()))).as("current lease untouched").isPresent();
        assertThat(await(a.acquire(lock, LONG_TTL, Duration.ZERO))).isEmpty();
        assertThat(await(b.release(current.leaseId()))).isTrue();
    }

    @Test
    void secondIssuerInstanceRenewsAndReleasesByLeaseId() throws Exception {
        LeaseIssuer a = issuer();
        List<LeaseEnd> ended = endsHeardBy(a);
        LeaseIssuer b = issuer(); // renews and releases a's lease by its id
        String lock = lock("cross");
        Lease lease = acquired(a, lock, Duration.ofSeconds(3));
        // Renew halfway, so the renewed expiry lies 1.5 s past the first one.
        Thread.sleep(1_500);
        Lease renewed = await(b.renew(lease.leaseId())).orElseThrow(() -> new AssertionError("renew refused"));
        assertThat(renewed.lock()).isEqualTo(lock);
        assertThat(renewed.leaseId()).isEqualTo(lease.leaseId());
        assertThat(renewed.token()).isEqualTo(lease.token());
        assertThat(renewed.expiresAt()).isGreaterThan(lease.expiresAt());

        // Past the first expiry the granting instance must honour the renew made elsewhere.
        Thread.sleep(Math.max(0, lease.expiresAt() - System.currentTimeMillis()) + 300);
        assertThat(await(a.acquire(lock, LONG_TTL, Duration.ZERO))).as("renewed elsewhere, still held").isEmpty();
        assertThat(await(b.release(lease.leaseId()))).isTrue();
        assertThat(await(a.release(lease.leaseId()))).isFalse();
        assertThat(await(a.renew(lease.leaseId()))).isEmpty();
        Lease next = acquired(a, lock, LONG_TTL);
        assertThat(next.token()).isGreaterThan(lease.token());
        Thread.sleep(200);
        assertThat(ended).as("a release is not an unannounced end").isEmpty();
    }

    // ---------------------------------------------------------------- wasGranted

    @Test
    void wasGrantedKnowsGrantedTokensAndOnlyForTheirLock() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("granted");
        String otherLock = lock("granted-other");
        Lease lease = acquired(a, lock, LONG_TTL);
        assertThat(await(a.release(lease.leaseId()))).isTrue();
        Lease again = acquired(a, lock, LONG_TTL);

        assertThat(await(a.wasGranted(lock, lease.token()))).isTrue();
        assertThat(await(a.wasGranted(lock, again.token()))).isTrue();
        assertThat(await(b.wasGranted(lock, lease.token()))).as("from another instance").isTrue();
        assertThat(await(a.wasGranted(lock, Long.MAX_VALUE))).isFalse();
        assertThat(await(b.wasGranted(lock, Long.MAX_VALUE))).isFalse();
        assertThat(await(a.wasGranted(lock, again.token() + 1))).as("not granted yet").isFalse();
        assertThat(await(a.wasGranted(otherLock, lease.token()))).as("token of another lock").isFalse();
        assertThat(await(b.wasGranted(otherLock, again.token()))).as("token of another lock").isFalse();
        assertThat(await(a.wasGranted(lock, 0))).isFalse();
        assertThat(await(a.wasGranted(lock, -1))).isFalse();

        // A grant on the other lock is known there, and still not for the first lock.
        Lease other = acquired(b, otherLock, LONG_TTL);
        assertThat(await(a.wasGranted(otherLock, other.token()))).isTrue();
        if (other.token() != lease.token() && other.token() != again.token()) {
            assertThat(await(a.wasGranted(lock, other.token()))).isFalse();
        }
    }

    // ---------------------------------------------------------------- bad input

    /**
     * Every issuer counts a lock's length in UTF-8 bytes, up to 4096: the gateway's one length rule
     * for keys and locks relies on it. Three-byte characters tell bytes from characters apart.
     */
    @Test
    void locksAreLimitedTo4096Utf8BytesOnEveryIssuer() throws Exception {
        LeaseIssuer issuer = issuer();
        String base = lock("utf8") + "/";
        int room = 4096 - base.getBytes(StandardCharsets.UTF_8).length;
        String longest = base + "x".repeat(room % 3) + "€".repeat(room / 3);
        assertThat(longest.getBytes(StandardCharsets.UTF_8)).hasSize(4096);
        Lease lease = acquired(issuer, longest, LONG_TTL);
        assertThat(await(issuer.release(lease.leaseId()))).isTrue();
        String over = longest + "€"; // 4099 bytes, about 1400 characters
        assertThat(failureOf(() -> issuer.acquire(over, LONG_TTL, Duration.ZERO))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> issuer.wasGranted(over, 1))).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * One lock-name rule on every issuer ({@link LockNames}): what it refuses, each issuer refuses
     * with IllegalArgumentException on every call that takes a lock, and changes nothing.
     */
    @Test
    void everyIssuerRefusesExactlyWhatTheLockNameRuleRefuses() throws Exception {
        LeaseIssuer issuer = issuer();
        String base = lock("rule") + "/";
        String oversized = base + "x".repeat(LockNames.MAX_BYTES + 1 - base.getBytes(StandardCharsets.UTF_8).length);
        // A lone surrogate has no UTF-8 form: an encoder replacing it with '?' would make these two one lock.
        String loneSurrogate = base + "a\uD800";
        for (String bad : new String[] {null, "", oversized, loneSurrogate}) {
            assertThatThrownBy(() -> LockNames.check(bad)).isInstanceOf(IllegalArgumentException.class);
            String name = bad == null ? "null" : bad.length() + " chars";
            assertThat(failureOf(() -> issuer.acquire(bad, LONG_TTL, Duration.ZERO))).as("acquire %s", name)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(failureOf(() -> issuer.wasGranted(bad, 1))).as("wasGranted %s", name)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        String look = base + "a?";
        LockNames.check(look);
        Lease lease = acquired(issuer, look, LONG_TTL);
        assertThat(lease.lock()).isEqualTo(look);
        assertThat(await(issuer.release(lease.leaseId()))).isTrue();
    }

    // ---------------------------------------------------------------- a closed issuer

    /**
     * A closed issuer answers like an unreachable one, whatever the backend: every call fails with
     * {@link IssuerUnavailableException} (the gateway answers 503), never a backend-specific type.
     */
    @Test
    void aClosedIssuerFailsEveryCallWithIssuerUnavailable() throws Exception {
        LeaseIssuer issuer = issuer();
        String lock = lock("closed");
        Lease lease = acquired(issuer, lock, LONG_TTL);
        issuer.close();
        List<Supplier<? extends CompletionStage<?>>> calls = List.of(
                () -> issuer.acquire(lock, LONG_TTL, Duration.ZERO),
                () -> issuer.acquire(lock("other"), LONG_TTL, Duration.ofSeconds(1)),
                () -> issuer.renew(lease.leaseId()),
                () -> issuer.renew(tampered(lease.leaseId())),
                () -> issuer.release(lease.leaseId()),
                () -> issuer.wasGranted(lock, lease.token()));
        for (int i = 0; i < calls.size(); i++) {
            assertThat(failureOf(calls.get(i))).as("call #%d", i).isInstanceOf(IssuerUnavailableException.class);
        }
        // Closing ended the lease: another issuer gets the lock at once.
        Lease next = acquired(issuer(), lock, LONG_TTL);
        assertThat(next.token()).isGreaterThan(lease.token());
    }

    @Test
    void badArgumentsAreIllegalArgumentException() throws Exception {
        LeaseIssuer issuer = issuer();
        String lock = lock("bad");
        List<Supplier<? extends CompletionStage<?>>> calls = List.of(
                () -> issuer.acquire("", LONG_TTL, Duration.ZERO),
                () -> issuer.acquire(null, LONG_TTL, Duration.ZERO),
                () -> issuer.acquire(lock, Duration.ZERO, Duration.ZERO),
                () -> issuer.acquire(lock, Duration.ofMillis(-1), Duration.ZERO),
                () -> issuer.acquire(lock, null, Duration.ZERO),
                () -> issuer.acquire(lock, LONG_TTL, Duration.ofMillis(-1)),
                () -> issuer.acquire(lock, LONG_TTL, null),
                () -> issuer.wasGranted(null, 1),
                () -> issuer.wasGranted("", 1));
        for (int i = 0; i < calls.size(); i++) {
            assertThat(failureOf(calls.get(i))).as("call #%d", i).isInstanceOf(IllegalArgumentException.class);
        }
        // Nothing was left behind by the refused calls: the lock is free.
        acquired(issuer, lock, LONG_TTL);
    }
}
