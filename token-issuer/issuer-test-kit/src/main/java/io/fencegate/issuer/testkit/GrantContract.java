package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The issuer contract, grant, renew and release: mutual exclusion and strictly increasing tokens
 * across instances, a lease renewed and released by id from any instance and by no one else, and
 * {@code wasGranted}.
 */
public abstract class GrantContract extends IssuerContractSupport {
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
            // The lock is read from the id alone: what a server authorizes a renew or release by.
            assertThat(issuer.lockOf(lease.leaseId())).as("lockOf").contains(name);
            leases.add(lease);
        }
        for (int i = 0; i < names.size(); i++) {
            assertThat(await(issuer.acquire(names.get(i), LONG_TTL, Duration.ZERO))).as(names.get(i)).isEmpty();
            assertThat(await(issuer.wasGranted(names.get(i), leases.get(i).token()))).isTrue();
            assertThat(await(issuer.release(leases.get(i).leaseId()))).isTrue();
        }
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
            assertThat(a.lockOf(garbage)).as("lockOf(%s)", garbage).isEmpty();
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
}
