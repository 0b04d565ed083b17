package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/**
 * What every theme of the issuer contract shares: the hook a backend's test implements
 * ({@link #newIssuer()}, called as often as a test needs independent instances on one backend), the
 * issuers closed after each test, lock names unique per test, and bounded waits. A backend's test
 * extends {@link AbstractLeaseIssuerContractTest}, the whole contract; the themes are
 * {@link GrantContract}, {@link WaitingContract}, {@link ExpiryContract} and {@link RefusalContract}.
 */
@Timeout(120)
public abstract class IssuerContractSupport {
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

    /** Threads in {@code concurrentAcquisitionsNeverOverlapAndTokensStrictlyIncreasePerLock}. */
    protected int concurrentThreads() {
        return 8;
    }

    /** Acquisitions per thread in the concurrency test. */
    protected int acquisitionsPerThread() {
        return 200;
    }

    /**
     * Closes the issuers of this test; closing twice is a no-op. A subclass whose own
     * {@code @AfterEach} stops the backend (it runs before this one) calls it first: an issuer
     * closed after its backend is gone waits out its release and pool timeouts.
     */
    @AfterEach
    protected final void closeSuiteIssuers() {
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
    protected static List<LeaseEnd> endsHeardBy(LeaseIssuer issuer) {
        List<LeaseEnd> ended = new CopyOnWriteArrayList<>();
        issuer.addListener((lease, reason) -> ended.add(reason));
        return ended;
    }

    protected static String tampered(String leaseId) {
        char last = leaseId.charAt(leaseId.length() - 1);
        return leaseId.substring(0, leaseId.length() - 1) + (last == '0' ? '1' : '0');
    }
}
