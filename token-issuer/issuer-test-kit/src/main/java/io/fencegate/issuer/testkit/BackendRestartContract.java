package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Read leases and permits held while the issuer's backend restarts (a ZooKeeper server, a
 * redis-server, a database server): each held lease either stays valid (a renew answers it, same
 * token and mode) or is reported lost (a renew answers empty), never anything in between: a lock is
 * never held by a write lease and a read lease at once, a semaphore never has more live permits than
 * its count nor two on one slot, and every grant after the restart has a token above every grant of
 * its lock before it.
 *
 * <p>A backend's test implements {@link #restartBackend()} on a server of its own (never a shared
 * one) and {@link #newIssuer()} on it; it runs alone in its class. Calls made while the issuer
 * reconnects may fail with {@code IssuerUnavailableException}: they are retried until
 * {@link #recoveryTimeout()}.
 */
public abstract class BackendRestartContract extends IssuerContractSupport {

    /**
     * The ttl of the leases held across the restart: long enough to outlive a slow restart (20 s).
     * A backend that restarts in about a second may shorten it: a lease whose key it restores from
     * disk holds its lock off until this ttl, which the writer after the restart waits out.
     */
    protected Duration heldTtl() {
        return Duration.ofSeconds(20);
    }

    /** Restarts the backend every issuer of {@link #newIssuer()} uses; returns once it was asked to start again. */
    protected abstract void restartBackend() throws Exception;

    /** How long the issuers may take to serve again after {@link #restartBackend()}. */
    protected Duration recoveryTimeout() {
        return Duration.ofSeconds(90);
    }

    @Test
    @Timeout(360)
    void readLeasesAndPermitsHeldAcrossABackendRestartStayValidOrAreLostAndNeverOverlapAWriter() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("restart-rw");
        String sem = lock("restart-sem");
        List<Lease> readers = List.of(grant(a, lock, LeaseMode.READ), grant(b, lock, LeaseMode.READ));
        List<Lease> permits = List.of(permit(a, sem), permit(b, sem));
        assertThat(permits).extracting(Lease::slot).containsExactlyInAnyOrder(0, 1);

        restartBackend();

        // Each held lease is still valid (its renew answers it unchanged) or lost (empty).
        List<Lease> liveReaders = survivors(a, readers);
        List<Lease> livePermits = survivors(b, permits);

        // The read lease: a writer is refused while any reader survives, then gets the lock above every token.
        LeaseIssuer fresh = issuer();
        if (!liveReaders.isEmpty()) {
            assertThat(retried(() -> fresh.acquire(lock, LeaseMode.WRITE, heldTtl(), Duration.ZERO, Duration.ZERO)))
                    .as("a write lease beside a read lease that survived the restart").isEmpty();
            for (Lease reader : liveReaders) {
                assertThat(retried(() -> fresh.release(reader.leaseId()))).as("release of a surviving reader").isTrue();
            }
        }
        // A lease reported lost may still hold its lock off until its ttl (a backend that restored its
        // key from disk): safe, so the writer may wait that out.
        Lease writer = grantedWithin(() -> fresh.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ofSeconds(5), Duration.ZERO),
                "no write lease after the restart");
        assertThat(writer.token()).as("the writer after the restart fences out every reader before it")
                .isGreaterThan(readers.stream().mapToLong(Lease::token).max().orElseThrow());
        for (Lease reader : readers) {
            assertThat(retried(() -> a.renew(reader.leaseId()))).as("read lease %s beside the writer", reader.token()).isEmpty();
        }
        assertThat(retried(() -> fresh.list(lock, null, 10)).leases()).extracting(LeaseInfo::mode).containsExactly(LeaseMode.WRITE);
        assertThat(retried(() -> fresh.grantedMode(lock, writer.token()))).contains(LeaseMode.WRITE);
        Lease reader = grantedAfterRelease(fresh, writer, () -> fresh.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ZERO, Duration.ZERO));
        assertThat(reader.token()).isGreaterThan(writer.token());

        // The permits: each lost slot goes to a new holder with a higher token; never a third permit.
        List<Lease> taken = new ArrayList<>();
        for (int i = livePermits.size(); i < permits.size(); i++) {
            taken.add(grantedWithin(() -> fresh.acquirePermit(sem, 2, LONG_TTL, Duration.ofSeconds(5)),
                    "a lost permit's slot never freed"));
        }
        for (Lease next : taken) {
            Lease before = permits.stream().filter(p -> p.slot() == next.slot()).findFirst().orElseThrow();
            assertThat(livePermits).as("a second permit on slot %d", next.slot()).noneMatch(p -> p.slot() == next.slot());
            assertThat(next.token()).as("slot %d's next holder fences out its lost one", next.slot()).isGreaterThan(before.token());
            assertThat(retried(() -> b.renew(before.leaseId()))).as("the lost permit beside its slot's next").isEmpty();
        }
        assertThat(retried(() -> fresh.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO))).as("a third permit of two").isEmpty();
        for (Lease permit : livePermits) {
            assertThat(retried(() -> fresh.release(permit.leaseId()))).as("release of a surviving permit").isTrue();
        }
        for (int i = 0; i < livePermits.size(); i++) {
            Lease next = retried(() -> fresh.acquirePermit(sem, 2, LONG_TTL, Duration.ofSeconds(5)))
                    .orElseThrow(() -> new AssertionError("a released permit's slot never freed"));
            Lease before = livePermits.stream().filter(p -> p.slot() == next.slot()).findFirst()
                    .orElseThrow(() -> new AssertionError("slot " + next.slot() + " granted twice"));
            assertThat(next.token()).isGreaterThan(before.token());
        }
    }

    private Lease grant(LeaseIssuer issuer, String lock, LeaseMode mode) throws Exception {
        return await(issuer.acquire(lock, mode, heldTtl(), Duration.ZERO, Duration.ZERO))
                .orElseThrow(() -> new AssertionError(mode + " lease on " + lock + " refused"));
    }

    private Lease permit(LeaseIssuer issuer, String sem) throws Exception {
        return await(issuer.acquirePermit(sem, 2, heldTtl(), Duration.ZERO)).orElseThrow(() -> new AssertionError("no permit of " + sem));
    }

    /** The leases a renew answers after the restart, each checked unchanged; a renew answering empty reports a lease lost. */
    private List<Lease> survivors(LeaseIssuer issuer, List<Lease> held) throws Exception {
        List<Lease> live = new ArrayList<>();
        for (Lease lease : held) {
            Optional<Lease> renewed = retried(() -> issuer.renew(lease.leaseId()));
            if (renewed.isPresent()) {
                assertThat(renewed.get().token()).as("a surviving lease keeps its token").isEqualTo(lease.token());
                assertThat(renewed.get().mode()).isEqualTo(lease.mode());
                assertThat(renewed.get().lock()).isEqualTo(lease.lock());
                live.add(lease);
            }
        }
        return live;
    }

    private Lease grantedAfterRelease(LeaseIssuer issuer, Lease held, Callable<java.util.concurrent.CompletionStage<Optional<Lease>>> acquire)
            throws Exception {
        assertThat(retried(acquire)).as("a read lease beside the writer").isEmpty();
        assertThat(retried(() -> issuer.release(held.leaseId()))).isTrue();
        return retried(acquire).orElseThrow(() -> new AssertionError("no read lease after the writer's release"));
    }

    /** The lease the call grants, asked again while it answers empty or the backend is out of reach. */
    private Lease grantedWithin(Callable<java.util.concurrent.CompletionStage<Optional<Lease>>> acquire, String failure) {
        AtomicReference<Lease> granted = new AtomicReference<>();
        Awaitility.await(failure).atMost(recoveryTimeout()).pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> e instanceof IssuerUnavailableException || e instanceof TimeoutException).until(() -> {
                    await(acquire.call()).ifPresent(granted::set);
                    return granted.get() != null;
                });
        return granted.get();
    }

    /** The call's answer, retried while the issuer cannot reach its restarting backend. */
    private <T> T retried(Callable<java.util.concurrent.CompletionStage<T>> call) {
        AtomicReference<T> answer = new AtomicReference<>();
        Awaitility.await().atMost(recoveryTimeout()).pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> e instanceof IssuerUnavailableException || e instanceof TimeoutException).until(() -> {
            answer.set(await(call.call()));
            return true;
        });
        return answer.get();
    }
}
