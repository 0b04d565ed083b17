package io.fencegate.client;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Leases on several locks granted together, all or none ({@link FencegateClient#acquireAll}): one
 * lease per lock, each with a token from its own lock's sequence. The group lives while every
 * member does; renew, release or watch it by {@link #groupId()} where a lease id goes.
 *
 * @param groupId opaque; names the group on the lease routes of any gateway
 * @param leases  the members, in the gateway's canonical order (UTF-8 byte order of the locks)
 */
public record LeaseGroup(String groupId, List<Lease> leases) {

    public LeaseGroup {
        leases = List.copyOf(leases);
    }

    /** The member on {@code lock}, if the group holds it. */
    public Optional<Lease> lease(String lock) {
        return leases.stream().filter(l -> l.lock().equals(lock)).findFirst();
    }

    /**
     * The token to send with writes guarded by {@code lock}.
     *
     * @throws IllegalArgumentException if the group holds no lease on {@code lock}
     */
    public long token(String lock) {
        return lease(lock).orElseThrow(() -> new IllegalArgumentException("the group holds no lease on '" + lock + "'"))
                .token();
    }

    /** The locks, in the group's order. */
    public List<String> locks() {
        return leases.stream().map(Lease::lock).toList();
    }

    /** The earliest member expiry: the group's. */
    public Instant expiresAt() {
        return leases.stream().map(Lease::expiresAt).min(Instant::compareTo).orElseThrow();
    }
}
