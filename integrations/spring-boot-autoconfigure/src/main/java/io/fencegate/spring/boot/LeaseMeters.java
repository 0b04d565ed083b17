package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseEnd;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * fencegate's lease meters, all tagged with the lock's {@link LockPrefix} only:
 * <ul>
 *   <li>{@code fencegate.lease.acquire} (timer; outcome = acquired | busy | failed)</li>
 *   <li>{@code fencegate.lease.held} (timer: grant to release, for leases released here)</li>
 *   <li>{@code fencegate.lease.lost} (counter; reason = expired | session_lost | renew_failed)</li>
 *   <li>{@code fencegate.guard.stale} (counter: writes a guard refused; call {@link #staleRefused})</li>
 * </ul>
 */
public final class LeaseMeters {
    private final MeterRegistry registry;

    public LeaseMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    void acquired(String lock, String outcome, long nanos) {
        Timer.builder("fencegate.lease.acquire").description("Time to acquire a lease, waiting included")
                .tag("prefix", LockPrefix.of(lock)).tag("outcome", outcome)
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    void held(String lock, long nanos) {
        Timer.builder("fencegate.lease.held").description("Time from a lease's grant to its release")
                .tag("prefix", LockPrefix.of(lock))
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    void lost(String lock, LeaseEnd reason) {
        lost(lock, reason.name().toLowerCase(Locale.ROOT));
    }

    /** A lease that ended without its holder releasing it; {@code reason} is low-cardinality. */
    public void lost(String lock, String reason) {
        Counter.builder("fencegate.lease.lost").description("Leases that ended without a release")
                .tag("prefix", LockPrefix.of(lock)).tag("reason", reason)
                .register(registry).increment();
    }

    /** A guarded write (or guard-row transaction) with a token of {@code lock} was refused as stale. */
    public void staleRefused(String lock) {
        Counter.builder("fencegate.guard.stale").description("Writes refused because a newer token had been seen")
                .tag("prefix", LockPrefix.of(lock))
                .register(registry).increment();
    }
}
