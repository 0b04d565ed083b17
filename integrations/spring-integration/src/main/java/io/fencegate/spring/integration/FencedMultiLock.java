package io.fencegate.spring.integration;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseWatchdog;
import io.fencegate.issuer.MultiLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Several keys' locks from a {@link FencedLockRegistry} taken as one, all or none: a fencegate
 * {@link MultiLock} group behind a local lock, with one lease and one token per key. The first
 * lock of the owning thread takes every key's lease (in the canonical order, so two groups over
 * crossing keys never deadlock, and within the caller's wait in all); if any key stays held,
 * nothing is held. The last unlock releases them all.
 *
 * <p>While held, {@link #tokens()} are the tokens to send with the writes each key protects (one
 * per key, from that key's own lock), and {@link #isLost()} turns true if any member's lease ended
 * under the holder: the group is lost whole. {@link #unlock()} of a lost group still frees the
 * lock here and releases what is left, then throws {@link java.util.ConcurrentModificationException}.
 *
 * <p>A group does not nest with the single locks of its keys: a thread that holds
 * {@code obtain("a")} and then locks {@code obtainAll(List.of("a", "b"))} waits for itself.
 */
public final class FencedMultiLock extends LeasedLock {
    private final List<String> keys;
    private final Map<String, String> keyOfLock = new LinkedHashMap<>();
    private volatile Held held;

    /** The group of the current hold; written only by the owning thread. */
    private static final class Held {
        final LeaseGroup group;
        final List<LeaseWatchdog.KeepAlive> keepAlives = new ArrayList<>();
        volatile boolean lost;

        Held(LeaseGroup group) {
            this.group = group;
        }
    }

    /** {@code keys} in their canonical order ({@link MultiLock#canonicalOrder}, already checked). */
    FencedMultiLock(FencedLockRegistry registry, List<String> keys) {
        super(registry);
        this.keys = List.copyOf(keys);
        keys.forEach(key -> keyOfLock.put(registry.lockPrefix() + key, key));
    }

    /** The keys of this lock, in the order their leases are taken. */
    public List<String> keys() {
        return keys;
    }

    /** Each key's fencing token, in {@link #keys()} order, for the group the current thread holds. */
    public Map<String, Long> tokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        owned().group.leases().forEach(lease -> tokens.put(keyOfLock.get(lease.lock()), lease.token()));
        return Collections.unmodifiableMap(tokens);
    }

    /** The fencing token of {@code key}'s lease in the group the current thread holds. */
    public long token(String key) {
        Long token = tokens().get(key);
        if (token == null) {
            throw new IllegalArgumentException("'" + key + "' is not one of this lock's keys " + keys);
        }
        return token;
    }

    /** Whether any lease of the group the current thread holds has ended under it. */
    public boolean isLost() {
        return owned().lost;
    }

    /** Throws {@link IllegalStateException} if the current thread's group was lost. */
    public void checkHeld() {
        Held h = owned();
        if (h.lost) {
            throw new IllegalStateException("a lease of the lock on " + keys + " (tokens " + tokens() + ") was lost");
        }
    }

    @Override
    boolean takeLeases(Duration wait) throws InterruptedException {
        Optional<LeaseGroup> group = registry.await(
                registry.multiLock().acquire(List.copyOf(keyOfLock.keySet()), registry.ttl(), wait), wait);
        if (group.isEmpty()) {
            return false;
        }
        Held h = new Held(group.get());
        if (registry.keepAlive()) {
            for (Lease member : group.get().leases()) {
                h.keepAlives.add(registry.watchdog().keepAlive(member, registry.ttl(), last -> h.lost = true));
            }
        }
        held = h;
        return true;
    }

    @Override
    String releaseLeases() {
        Held h = held;
        held = null;
        h.keepAlives.forEach(LeaseWatchdog.KeepAlive::stop);
        boolean released = registry.awaitQuietly(registry.multiLock().release(h.group));
        return released && !h.lost ? null : "a lease of the lock on " + keys + " (tokens " + h.group.tokens()
                + ") ended before unlock, or its release went unanswered: a newer holder may have written since; writes with these tokens are refused";
    }

    /** Renews every lease of the current thread's group now; see {@link FencedLockRegistry#renewLock}. */
    void renew() {
        Held h = owned();
        Optional<LeaseGroup> renewed;
        try {
            renewed = registry.await(registry.multiLock().renew(h.group), registry.callTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while renewing the lock on " + keys, e);
        }
        if (renewed.isEmpty()) {
            h.lost = true;
            throw new IllegalStateException("could not renew the lock on " + keys + ": a lease of it was lost");
        }
    }

    private Held owned() {
        Held h = held;
        if (!local.isHeldByCurrentThread() || h == null) {
            throw new IllegalStateException("the current thread does not hold the lock on " + keys);
        }
        return h;
    }

    @Override
    String name() {
        return keys.toString();
    }

    @Override
    public String toString() {
        return "FencedMultiLock[" + keyOfLock.keySet() + "]";
    }
}
