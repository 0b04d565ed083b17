package io.fencegate.issuer.testkit;

import io.fencegate.issuer.Lease;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What holders racing for locks saw, checked as they go: a lease granted while another holder of
 * its lock is still in, or with a token not above the lock's previous grant, is a violation.
 * Holders call {@link #granted} as soon as they have a lease and {@link #releasing} before they
 * give it back; the tokens of a lock are then in grant order, for the test's final checks.
 */
public final class GrantOrder {
    private final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> tokens = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    /** {@code lease} was just granted on {@code lock}. */
    public void granted(String lock, Lease lease) {
        if (!holders.computeIfAbsent(lock, l -> new AtomicInteger()).compareAndSet(0, 1)) {
            violations.add("two live leases on " + lock + " (token " + lease.token() + ")");
        }
        // Appended only by the lock's current holder, so the list order is the grant order.
        List<Long> seen = tokens.computeIfAbsent(lock, l -> Collections.synchronizedList(new ArrayList<>()));
        if (!seen.isEmpty() && seen.get(seen.size() - 1) >= lease.token()) {
            violations.add("token " + lease.token() + " on " + lock + " after " + seen.get(seen.size() - 1));
        }
        seen.add(lease.token());
    }

    /** The holder of {@code lock} is about to release it: from here on another may hold it. */
    public void releasing(String lock) {
        holders.get(lock).set(0);
    }

    /** A violation the test saw itself (a release refused, say), reported with the others. */
    public void violation(String what) {
        violations.add(what);
    }

    /** Every violation seen so far; empty when exclusion and token order held. */
    public List<String> violations() {
        return Collections.unmodifiableList(violations);
    }

    /** The tokens granted on {@code lock}, in grant order (a copy). */
    public List<Long> tokens(String lock) {
        List<Long> seen = tokens.get(lock);
        if (seen == null) {
            return List.of();
        }
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    /** The highest token granted on any lock so far (0 before the first grant). */
    public long maxToken() {
        return tokens.keySet().stream().flatMap(lock -> tokens(lock).stream()).mapToLong(Long::longValue).max().orElse(0);
    }
}
