package io.fencegate.issuer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Several locks taken as one, all or nothing, on any {@link LeaseIssuer}: a {@link LeaseGroup}
 * holds one lease per lock, each carrying a token from its own lock's sequence, so a write guarded
 * by any one of the locks is fenced exactly as under a single lease.
 *
 * <p>How: the locks are acquired one at a time in one canonical order, the unsigned byte order of
 * their UTF-8 names, within one overall wait. Why that order: two callers asking for {A, B} and
 * {B, A} both go for A first, so neither can hold one lock while waiting for the other's (no
 * deadlock, and no need to give up and retry). When a lock is still held at the deadline, or any
 * call fails, every lease already taken is released before the answer, so a failed attempt leaves
 * nothing held. Costs: n acquires in sequence, the same as n single acquires; renew and release
 * send their n calls at once.
 *
 * <p>The group is one lease to its holder: {@link #renew} extends every member, and if any member
 * is gone (expired, lost with its session, released) the group is gone: the renew answers empty
 * and releases the survivors, so the locks do not stay held by a holder that must stop. Groups are
 * named by ids that carry their members' lease ids ({@link LeaseGroupIds}), so any issuer instance
 * on the backend serves them, with no group state kept.
 */
public final class MultiLock {

    /** The most locks one group takes. */
    public static final int MAX_LOCKS = 8;

    /** Unsigned lexicographic order of UTF-8 bytes: the same on every JVM and for every issuer. */
    private static final Comparator<byte[]> UTF8_ORDER = Arrays::compareUnsigned;

    private final LeaseIssuer issuer;

    public MultiLock(LeaseIssuer issuer) {
        this.issuer = Objects.requireNonNull(issuer, "issuer");
    }

    /**
     * {@code locks} in the order a group takes them: the unsigned byte order of their UTF-8 names.
     *
     * @throws IllegalArgumentException for a null or empty list, more than {@link #MAX_LOCKS}
     *     locks, a name {@link LockNames} refuses, or the same lock twice
     */
    public static List<String> canonicalOrder(List<String> locks) {
        if (locks == null || locks.isEmpty()) {
            throw new IllegalArgumentException("locks must name at least one lock");
        }
        if (locks.size() > MAX_LOCKS) {
            throw new IllegalArgumentException("locks may name at most " + MAX_LOCKS + " locks, was " + locks.size());
        }
        record Named(String lock, byte[] utf8) { }
        List<Named> named = new ArrayList<>(locks.size());
        HashSet<String> seen = new HashSet<>();
        for (String lock : locks) {
            byte[] utf8 = LockNames.utf8(lock);
            if (!seen.add(lock)) {
                throw new IllegalArgumentException("lock '" + lock + "' is named twice");
            }
            named.add(new Named(lock, utf8));
        }
        named.sort(Comparator.comparing(Named::utf8, UTF8_ORDER));
        return named.stream().map(Named::lock).toList();
    }

    /** {@link #acquire(List, Duration, Duration, Function)} with no lock-delay. */
    public CompletionStage<Optional<LeaseGroup>> acquire(List<String> locks, Duration ttl, Duration wait) {
        return acquire(locks, ttl, wait, lock -> Duration.ZERO);
    }

    /**
     * Acquires every lock in {@code locks}, or none: waits up to {@code wait} in all (not per
     * lock) for their holders to leave.
     *
     * @param lockDelay each lock's lock-delay ({@link LeaseIssuer#acquire(String, Duration, Duration, Duration)})
     * @return the group, or empty if some lock was still held when {@code wait} ran out; then
     *     nothing is held. A failed call (the backend unavailable) fails the stage, also after every
     *     lease taken was released; a release that failed too is added to it as suppressed (that
     *     lease ends by its ttl).
     * @throws IllegalArgumentException (through the stage) for bad locks ({@link #canonicalOrder}),
     *     a bad ttl or wait; nothing is acquired then
     */
    public CompletionStage<Optional<LeaseGroup>> acquire(List<String> locks, Duration ttl, Duration wait,
            Function<String, Duration> lockDelay) {
        List<String> order;
        try {
            order = canonicalOrder(locks);
            if (ttl == null || ttl.toMillis() <= 0) {
                throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
            }
            if (wait == null || wait.isNegative()) {
                throw new IllegalArgumentException("wait must be zero or positive, was " + wait);
            }
            Objects.requireNonNull(lockDelay, "lockDelay");
        } catch (IllegalArgumentException | NullPointerException e) {
            return CompletableFuture.failedFuture(e);
        }
        long deadline = System.nanoTime() + wait.toNanos();
        CompletableFuture<Optional<LeaseGroup>> answer = new CompletableFuture<>();
        next(order, new ArrayList<>(order.size()), ttl, deadline, lockDelay, answer);
        return answer;
    }

    /** Acquires {@code order.get(taken.size())}, then the rest; undoes {@code taken} on any miss. */
    private void next(List<String> order, List<Lease> taken, Duration ttl, long deadline,
            Function<String, Duration> lockDelay, CompletableFuture<Optional<LeaseGroup>> answer) {
        if (taken.size() == order.size()) {
            LeaseGroup group = new LeaseGroup(taken);
            try {
                group.id(); // an issuer whose ids cannot be a group's members: refuse, holding nothing
            } catch (IllegalArgumentException e) {
                releaseAll(taken.stream().map(Lease::leaseId).toList())
                        .whenComplete((released, error) -> answer.completeExceptionally(e));
                return;
            }
            answer.complete(Optional.of(group));
            return;
        }
        String lock = order.get(taken.size());
        // What is left of the one overall wait; zero once it has run out (a free lock is still taken).
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        CompletionStage<Optional<Lease>> acquired;
        try {
            acquired = issuer.acquire(lock, ttl, left, lockDelay.apply(lock));
        } catch (RuntimeException e) {
            acquired = CompletableFuture.failedFuture(e);
        }
        acquired.whenComplete((lease, error) -> {
            if (error == null && lease.isPresent()) {
                taken.add(lease.get());
                next(order, taken, ttl, deadline, lockDelay, answer);
                return;
            }
            Throwable cause = unwrap(error);
            releaseAll(taken.stream().map(Lease::leaseId).toList()).whenComplete((released, releaseError) -> {
                if (cause == null) {
                    answer.complete(Optional.empty());
                } else {
                    if (releaseError != null) {
                        cause.addSuppressed(unwrap(releaseError));
                    }
                    answer.completeExceptionally(cause);
                }
            });
        });
    }

    /**
     * Extends every member of the group {@code groupId} names to now + its ttl, all at once.
     *
     * @return the group with its new expiries; empty if any member is gone (or the id names no
     *     group), after the members still alive were released: a group is lost whole
     */
    public CompletionStage<Optional<LeaseGroup>> renew(String groupId) {
        Optional<List<String>> members = LeaseGroupIds.parse(groupId);
        if (members.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return whole(members.get(), issuer::renew);
    }

    /** {@link #renew(String)} of {@code group}. */
    public CompletionStage<Optional<LeaseGroup>> renew(LeaseGroup group) {
        return renew(group.id());
    }

    /**
     * The live group {@code groupId} names, read without changing it (for watchers); empty once
     * any member has ended. Unlike {@link #renew} it releases nothing.
     */
    public CompletionStage<Optional<LeaseGroup>> find(String groupId) {
        Optional<List<String>> members = LeaseGroupIds.parse(groupId);
        if (members.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        List<CompletableFuture<Optional<Lease>>> reads = members.get().stream()
                .map(id -> call(() -> issuer.find(id))).toList();
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<Lease> found = reads.stream().map(CompletableFuture::join).flatMap(Optional::stream).toList();
            return found.size() == reads.size() ? Optional.of(new LeaseGroup(found)) : Optional.<LeaseGroup>empty();
        });
    }

    /**
     * Releases every member of the group, all at once.
     *
     * @return true if every member was live and this call ended it; false if the id names no group
     *     or any member was already gone (the others are released all the same)
     */
    public CompletionStage<Boolean> release(String groupId) {
        Optional<List<String>> members = LeaseGroupIds.parse(groupId);
        if (members.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        return releaseAll(members.get());
    }

    /** {@link #release(String)} of {@code group}. */
    public CompletionStage<Boolean> release(LeaseGroup group) {
        return release(group.id());
    }

    /**
     * The locks of the group an id names, read from the member ids alone ({@link LeaseIssuer#lockOf}):
     * no round trip, no answer about whether the group lives. Empty if the id is no group id, or the
     * issuer cannot tell some member's lock from its id.
     */
    public Optional<List<String>> locksOf(String groupId) {
        Optional<List<String>> members = LeaseGroupIds.parse(groupId);
        if (members.isEmpty()) {
            return Optional.empty();
        }
        List<String> locks = new ArrayList<>();
        for (String member : members.get()) {
            Optional<String> lock = issuer.lockOf(member);
            if (lock.isEmpty()) {
                return Optional.empty();
            }
            locks.add(lock.get());
        }
        return Optional.of(List.copyOf(locks));
    }

    // ---------------------------------------------------------------- the group's calls, all at once

    /**
     * Runs {@code call} on every member at once. All present: the group. Any empty: the survivors
     * are released and the answer is empty. Otherwise (a call failed, none answered gone) the
     * failure: nobody can say the group ended, so nothing is released.
     */
    private CompletionStage<Optional<LeaseGroup>> whole(List<String> memberIds,
            Function<String, CompletionStage<Optional<Lease>>> call) {
        List<CompletableFuture<Optional<Lease>>> calls = memberIds.stream().map(id -> call(() -> call.apply(id))).toList();
        return settled(calls).thenCompose(v -> {
            boolean anyGone = calls.stream().anyMatch(c -> !c.isCompletedExceptionally() && c.join().isEmpty());
            if (anyGone) {
                List<String> survivors = calls.stream()
                        .filter(c -> !c.isCompletedExceptionally() && c.join().isPresent())
                        .map(c -> c.join().get().leaseId()).toList();
                // Failed members are released too: they may live, and the group is over either way.
                List<String> unknown = new ArrayList<>();
                for (int i = 0; i < calls.size(); i++) {
                    if (calls.get(i).isCompletedExceptionally()) {
                        unknown.add(memberIds.get(i));
                    }
                }
                List<String> toRelease = new ArrayList<>(survivors);
                toRelease.addAll(unknown);
                return releaseAll(toRelease).handle((released, error) -> Optional.<LeaseGroup>empty());
            }
            for (CompletableFuture<Optional<Lease>> c : calls) {
                if (c.isCompletedExceptionally()) {
                    return c.thenApply(never -> Optional.<LeaseGroup>empty()); // fails with the member's error
                }
            }
            return CompletableFuture.completedFuture(Optional.of(new LeaseGroup(
                    calls.stream().map(c -> c.join().orElseThrow()).toList())));
        });
    }

    /** Releases every id at once: true if each release ended a live lease; fails if any release failed. */
    private CompletableFuture<Boolean> releaseAll(List<String> leaseIds) {
        if (leaseIds.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        List<CompletableFuture<Boolean>> releases = leaseIds.stream().map(id -> call(() -> issuer.release(id))).toList();
        return settled(releases).thenCompose(v -> {
            for (CompletableFuture<Boolean> r : releases) {
                if (r.isCompletedExceptionally()) {
                    return r;
                }
            }
            return CompletableFuture.completedFuture(releases.stream().allMatch(CompletableFuture::join));
        });
    }

    /** Completes when every call has, failed or not (unlike allOf's result, which fails with the first). */
    private static CompletableFuture<Void> settled(List<? extends CompletableFuture<?>> calls) {
        return CompletableFuture.allOf(calls.stream().map(c -> c.handle((r, e) -> null))
                .toArray(CompletableFuture[]::new));
    }

    private static <T> CompletableFuture<T> call(java.util.function.Supplier<CompletionStage<T>> call) {
        try {
            return call.get().toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
