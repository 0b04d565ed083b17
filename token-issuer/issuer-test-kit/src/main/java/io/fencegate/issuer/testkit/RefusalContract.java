package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LockNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The issuer contract, refusals: the one lock-name rule and bad arguments fail with
 * IllegalArgumentException and change nothing; a closed issuer fails every call as an unreachable
 * one does, with IssuerUnavailableException.
 */
public abstract class RefusalContract extends ExpiryContract {
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
