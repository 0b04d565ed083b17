package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The issuer contract, several locks as one ({@link MultiLock} over this issuer): all or nothing,
 * each member's token from its own lock's sequence, a failed attempt leaves nothing held, the group
 * renewed and released as one and lost whole, and groups that cross ({A, B} against {B, A}) all
 * complete without two holders of a lock at once.
 */
public abstract class MultiLockContract extends RefusalContract {

    /** Groups each thread takes in {@link #crossingGroupsAllCompleteWithoutDeadlockOrOverlap}. */
    protected int groupsPerThread() {
        return 15;
    }

    @Test
    void aGroupHoldsEveryLockWithATokenAboveThatLocksPreviousGrant() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<String> locks = List.of(lock("g-z"), lock("g-x"), lock("g-y"));
        // Earlier grants on two of the locks: each member's token must pass its own lock's last one.
        long x = released(a, locks.get(1)).token();
        long y = released(b, locks.get(2)).token();

        LeaseGroup group = await(new MultiLock(a).acquire(locks, LONG_TTL, Duration.ZERO)).orElseThrow();

        assertThat(group.locks()).containsExactlyElementsOf(MultiLock.canonicalOrder(locks));
        assertThat(group.token(locks.get(1))).isGreaterThan(x);
        assertThat(group.token(locks.get(2))).isGreaterThan(y);
        for (Lease member : group.leases()) {
            assertThat(await(b.wasGranted(member.lock(), member.token()))).as("granted %s", member.lock()).isTrue();
            assertThat(await(b.acquire(member.lock(), LONG_TTL, Duration.ZERO))).as("held %s", member.lock()).isEmpty();
        }
        // Another group that shares one lock gets none of its locks.
        String other = lock("g-other");
        assertThat(await(new MultiLock(b).acquire(List.of(other, locks.get(0)), LONG_TTL, Duration.ZERO))).isEmpty();
        assertThat(live(b, other)).as("nothing left held on the free lock").isEmpty();

        assertThat(await(new MultiLock(b).release(group.id()))).as("released from another instance").isTrue();
        for (Lease member : group.leases()) {
            assertThat(released(a, member.lock()).token()).isGreaterThan(member.token());
        }
    }

    @Test
    void aGroupThatCannotHaveEveryLockLeavesNothingHeld() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String prefix = lock("g-fail") + "/";
        List<String> locks = List.of(prefix + "a", prefix + "b", prefix + "c", prefix + "d");
        // Held in the middle of the canonical order: two locks are taken before the miss, one is not reached.
        Lease held = acquired(b, prefix + "c", LONG_TTL);

        Optional<LeaseGroup> none = await(new MultiLock(a).acquire(locks, LONG_TTL, Duration.ofMillis(300)));

        assertThat(none).isEmpty();
        assertThat(listed(b, prefix)).as("only the other holder's lease is left")
                .extracting(LeaseInfo::lock).containsExactly(prefix + "c");
        for (String lock : List.of(prefix + "a", prefix + "b", prefix + "d")) {
            released(b, lock);
        }
        assertThat(await(b.release(held.leaseId()))).isTrue();
        // With the lock free, the same group is granted whole.
        LeaseGroup group = await(new MultiLock(a).acquire(locks, LONG_TTL, Duration.ZERO)).orElseThrow();
        assertThat(group.locks()).containsExactlyElementsOf(locks);
        assertThat(await(new MultiLock(a).release(group))).isTrue();
        assertThat(listed(b, prefix)).isEmpty();
    }

    @Test
    void badGroupsAreRefusedAndChangeNothing() throws Exception {
        LeaseIssuer a = issuer();
        MultiLock multi = new MultiLock(a);
        String prefix = lock("g-bad") + "/";
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= MultiLock.MAX_LOCKS; i++) {
            tooMany.add(prefix + i);
        }
        List<List<String>> refused = List.of(List.of(), List.of(prefix + "a", prefix + "b", prefix + "a"), tooMany,
                List.of(prefix + "a", ""), List.of(prefix + "a", prefix + "\uD800"));
        for (List<String> locks : refused) {
            assertThat(failureOf(() -> multi.acquire(locks, LONG_TTL, Duration.ZERO)))
                    .as("%s", locks).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(failureOf(() -> multi.acquire(List.of(prefix + "a"), Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(listed(a, prefix)).isEmpty();
        assertThat(await(multi.renew("lg1~not-a-lease"))).isEmpty();
        assertThat(await(multi.release("not-a-group"))).isFalse();
    }

    @Test
    void aGroupRenewsAsOneAndLosingAnyMemberLosesTheGroupAndFreesTheRest() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<String> locks = List.of(lock("g-r1"), lock("g-r2"), lock("g-r3"));
        LeaseGroup group = await(new MultiLock(a).acquire(locks, LONG_TTL, Duration.ZERO)).orElseThrow();
        assertThat(new MultiLock(b).locksOf(group.id())).contains(group.locks());

        LeaseGroup renewed = await(new MultiLock(b).renew(group.id())).orElseThrow();
        assertThat(renewed.id()).isEqualTo(group.id());
        assertThat(renewed.expiresAt()).isGreaterThanOrEqualTo(group.expiresAt());
        assertThat(await(new MultiLock(b).find(group.id()))).isPresent();

        // One member ends (as an expiry or a lost session would end it): the group is gone with it.
        Lease middle = group.leases().get(1);
        assertThat(await(b.release(middle.leaseId()))).isTrue();
        assertThat(await(new MultiLock(b).find(group.id()))).isEmpty();
        assertThat(await(new MultiLock(b).renew(group.id()))).isEmpty();
        for (Lease member : group.leases()) {
            assertThat(await(a.find(member.leaseId()))).as("%s freed with the group", member.lock()).isEmpty();
        }
        assertThat(await(new MultiLock(a).release(group.id()))).isFalse();
    }

    @Test
    @Timeout(300)
    void crossingGroupsAllCompleteWithoutDeadlockOrOverlap() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        List<String> locks = List.of(lock("x-a"), lock("x-b"), lock("x-c"));
        GrantOrder grants = new GrantOrder();
        int threads = concurrentThreads();
        int rounds = groupsPerThread();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                MultiLock multi = new MultiLock(t % 2 == 0 ? a : b);
                int thread = t;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < rounds && grants.violations().isEmpty(); i++) {
                        // Every thread asks in its own order: {A,B} against {B,A}, and three-lock crossings.
                        List<String> asked = new ArrayList<>(locks);
                        Collections.shuffle(asked, ThreadLocalRandom.current());
                        if ((thread + i) % 2 == 0) {
                            asked = asked.subList(0, 2);
                        }
                        List<String> wanted = asked;
                        LeaseGroup group = await(multi.acquire(wanted, LONG_TTL, Duration.ofSeconds(60)))
                                .orElseThrow(() -> new AssertionError("no group on " + wanted + " within 60 s"));
                        for (Lease member : group.leases()) {
                            grants.granted(member.lock(), member);
                        }
                        Thread.yield();
                        for (Lease member : group.leases()) {
                            grants.releasing(member.lock());
                        }
                        if (!await(multi.release(group))) {
                            grants.violation("release of a live group answered false on " + group.locks());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(290, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(grants.violations()).isEmpty();
        for (String lock : locks) {
            assertThat(grants.tokens(lock)).as("tokens of %s", lock).doesNotHaveDuplicates().isSorted();
        }
        for (String lock : locks) {
            assertThat(live(a, lock)).as("nothing held on %s", lock).isEmpty();
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A lease on {@code lock}, taken and released at once. */
    private Lease released(LeaseIssuer issuer, String lock) throws Exception {
        Lease lease = acquired(issuer, lock, LONG_TTL);
        assertThat(await(issuer.release(lease.leaseId()))).isTrue();
        return lease;
    }

    /** The live leases on exactly {@code lock}. */
    private List<LeaseInfo> live(LeaseIssuer issuer, String lock) throws Exception {
        return listed(issuer, lock).stream().filter(l -> l.lock().equals(lock)).toList();
    }

    /** Every live lease under {@code prefix}, first page (tests keep far fewer). */
    private List<LeaseInfo> listed(LeaseIssuer issuer, String prefix) throws Exception {
        return await(issuer.list(prefix, null, LeaseIssuer.MAX_LIST_LIMIT)).leases();
    }
}
