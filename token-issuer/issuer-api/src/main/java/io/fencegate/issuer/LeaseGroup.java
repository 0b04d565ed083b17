package io.fencegate.issuer;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Leases on several locks taken together by a {@link MultiLock}: all or none, one lease per lock,
 * each with a token from its own lock's sequence. The group lives while every member lives;
 * losing any one of them loses the group.
 *
 * @param leases the members, in the group's canonical lock order (UTF-8 byte order of the names)
 */
public record LeaseGroup(List<Lease> leases) {

    public LeaseGroup {
        leases = List.copyOf(leases);
        if (leases.isEmpty()) {
            throw new IllegalArgumentException("a group has at least one lease");
        }
    }

    /**
     * The group's id: renew, release or find the group by it, on any issuer instance of the same
     * backend ({@link LeaseGroupIds}).
     */
    public String id() {
        return LeaseGroupIds.format(leases.stream().map(Lease::leaseId).toList());
    }

    /** The locks, in the group's order. */
    public List<String> locks() {
        return leases.stream().map(Lease::lock).toList();
    }

    /** The member on {@code lock}, if the group holds it. */
    public Optional<Lease> lease(String lock) {
        return leases.stream().filter(l -> l.lock().equals(lock)).findFirst();
    }

    /**
     * The token to send with writes guarded by {@code lock}.
     *
     * @throws IllegalArgumentException if the group does not hold {@code lock}
     */
    public long token(String lock) {
        return lease(lock).orElseThrow(() -> new IllegalArgumentException("the group holds no lease on '" + lock + "'"))
                .token();
    }

    /**
     * Each lock's token, in the group's order: what a store guarding several keys at once takes,
     * one key per lock (e.g. the JDBC adapter's {@code GuardRowTransactions.runAll}).
     */
    public Map<String, Long> tokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        leases.forEach(l -> tokens.put(l.lock(), l.token()));
        return Collections.unmodifiableMap(tokens);
    }

    /** The earliest member expiry, epoch milliseconds: the group's own. */
    public long expiresAt() {
        return leases.stream().mapToLong(Lease::expiresAt).min().orElseThrow();
    }
}
