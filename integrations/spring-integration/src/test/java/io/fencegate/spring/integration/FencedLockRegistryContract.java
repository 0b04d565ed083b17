package io.fencegate.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scenarios of Spring Integration's own registry tests that apply to fencegate leases, run
 * against a real backend by each subclass. Two issuer instances stand for two processes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class FencedLockRegistryContract {
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private LeaseIssuer issuerA;
    private LeaseIssuer issuerB;
    protected String key;

    /** A fresh issuer on the test's backend; every issuer of one test shares the backend's namespace. */
    protected abstract LeaseIssuer newIssuer();

    @BeforeEach
    void issuers() {
        issuerA = closed(newIssuer());
        issuerB = closed(newIssuer());
        key = "k-" + ThreadLocalRandom.current().nextInt(1 << 30);
    }

    @AfterEach
    void close() throws Exception {
        threads.shutdownNow();
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closed(T resource) {
        closing.add(resource);
        return resource;
    }

    private FencedLockRegistry registry(LeaseIssuer issuer) {
        return closed(new FencedLockRegistry(issuer, Duration.ofSeconds(10)));
    }

    private FencedLockRegistry registryWithoutKeepAlive(LeaseIssuer issuer, Duration ttl) {
        return closed(new FencedLockRegistry(issuer, ttl, "", false, Duration.ofSeconds(10)));
    }

    @Test
    void lockAndUnlockGiveTheHolderAToken() {
        FencedLock lock = registry(issuerA).obtain(key);
        lock.lock();
        try {
            assertThat(lock.token()).isPositive();
            assertThat(lock.isLost()).isFalse();
        } finally {
            lock.unlock();
        }
        assertThatThrownBy(lock::token).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void lockInterruptiblyTakesTheLeaseAndAnInterruptedWaiterGivesUp() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        FencedLock lock = registry.obtain(key);
        lock.lockInterruptibly();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<?> waiter = threads.submit(() -> {
            waiting.countDown();
            registry(issuerB).obtain(key).lockInterruptibly();
            return null;
        });
        waiting.await();
        Thread.sleep(200);
        waiter.cancel(true);
        assertThat(waiter.isCancelled()).isTrue();
        lock.unlock();
    }

    @Test
    void theOwningThreadMayLockAgainUnderOneLeaseAndToken() throws Exception {
        FencedLock lock = registry(issuerA).obtain(key);
        lock.lock();
        long token = lock.token();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.token()).isEqualTo(token);
        lock.unlock();
        assertThat(lock.token()).as("still held after the inner unlock").isEqualTo(token);
        assertThat(registry(issuerB).obtain(key).tryLock()).isFalse();
        lock.unlock();
        assertThat(tryLockElsewhere(registry(issuerB), key)).isTrue();
    }

    @Test
    void twoKeysAreTwoLocks() {
        FencedLockRegistry registry = registry(issuerA);
        FencedLock one = registry.obtain(key);
        FencedLock two = registry.obtain(key + "-2");
        one.lock();
        two.lock();
        assertThat(one.token()).isNotEqualTo(two.token()).isPositive();
        two.unlock();
        one.unlock();
        assertThat(registry.obtain(key)).isSameAs(one);
    }

    @Test
    void anotherThreadOfTheSameRegistryCannotTakeAHeldLock() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        FencedLock lock = registry.obtain(key);
        lock.lock();
        assertThat(threads.submit(() -> registry.obtain(key).tryLock(200, TimeUnit.MILLISECONDS)).get()).isFalse();
        lock.unlock();
    }

    @Test
    void aWaitingThreadGetsTheLockAfterUnlockWithAHigherToken() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        FencedLock lock = registry.obtain(key);
        lock.lock();
        long first = lock.token();
        Future<Long> second = threads.submit(() -> {
            FencedLock same = registry.obtain(key);
            same.lock();
            try {
                return same.token();
            } finally {
                same.unlock();
            }
        });
        Thread.sleep(100);
        assertThat(second.isDone()).isFalse();
        lock.unlock();
        assertThat(second.get(20, TimeUnit.SECONDS)).isGreaterThan(first);
    }

    @Test
    void twoRegistriesOnTwoIssuersExcludeEachOther() throws Exception {
        FencedLockRegistry here = registry(issuerA);
        FencedLockRegistry there = registry(issuerB);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (FencedLockRegistry registry : List.of(here, there, here, there)) {
            workers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 5; i++) {
                    FencedLock lock = registry.obtain(key);
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        tokens.add(lock.token());
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
            }, threads));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(45, TimeUnit.SECONDS);
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).hasSize(20).doesNotHaveDuplicates();
    }

    @Test
    void aThreadThatDoesNotHoldTheLockCannotUnlockIt() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        FencedLock lock = registry.obtain(key);
        lock.lock();
        Future<?> wrong = threads.submit(() -> registry.obtain(key).unlock());
        assertThatThrownBy(wrong::get).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(lock.token()).isPositive();
        lock.unlock();
    }

    @Test
    void tryLockWithATimeoutWaitsThatLongThenFails() throws Exception {
        FencedLock held = registry(issuerA).obtain(key);
        held.lock();
        long start = System.nanoTime();
        assertThat(registry(issuerB).obtain(key).tryLock(500, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(10));
        held.unlock();
    }

    @Test
    void expireUnusedDropsOnlyLocksNobodyHolds() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        FencedLock held = registry.obtain(key);
        FencedLock idle = registry.obtain(key + "-idle");
        held.lock();
        idle.lock();
        idle.unlock();
        Thread.sleep(50);
        registry.expireUnusedOlderThan(10);
        assertThat(registry.obtain(key)).isSameAs(held);
        assertThat(registry.obtain(key + "-idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void renewKeepsALeaseWithoutKeepAlivePastItsTtl() throws Exception {
        // A renew every 300 ms keeps a 1.5 s lease with room for a slow renew and tryLock on a loaded machine.
        FencedLockRegistry registry = registryWithoutKeepAlive(issuerA, Duration.ofMillis(1_500));
        FencedLock lock = registry.obtain(key);
        lock.lock();
        for (int i = 0; i < 11; i++) { // 3.3 s, more than twice the ttl
            Thread.sleep(300);
            registry.renewLock(key);
            assertThat(registry(issuerB).obtain(key).tryLock()).isFalse();
        }
        lock.unlock();
    }

    @Test
    void renewByAThreadThatDoesNotHoldTheLockIsRefused() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class);
        FencedLock lock = registry.obtain(key);
        lock.lock();
        assertThatThrownBy(() -> threads.submit(() -> registry.renewLock(key)).get())
                .hasCauseInstanceOf(IllegalStateException.class);
        lock.unlock();
    }

    @Test
    void aLeaseThatRanOutIsLostAndItsUnlockThrowsAfterFreeingTheLock() throws Exception {
        FencedLockRegistry registry = registryWithoutKeepAlive(issuerA, Duration.ofMillis(400));
        FencedLock lock = registry.obtain(key);
        lock.lock();
        long stale = lock.token();
        FencedLock other = registry(issuerB).obtain(key);
        assertThat(other.tryLock(20, TimeUnit.SECONDS)).as("the lease runs out, another holder gets it").isTrue();
        assertThat(other.token()).isGreaterThan(stale);
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class);
        assertThat(lock.isLost()).isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThat(threads.submit(() -> registry.obtain(key).tryLock()).get()).as("the local lock was freed").isFalse();
        other.unlock();
    }

    @Test
    void keepAliveHoldsTheLeasePastSeveralTtls() throws Exception {
        FencedLockRegistry registry = closed(new FencedLockRegistry(issuerA, Duration.ofMillis(1500)));
        FencedLock lock = registry.obtain(key);
        lock.lock();
        Thread.sleep(3500); // more than two ttls
        assertThat(lock.isLost()).isFalse();
        assertThat(registry(issuerB).obtain(key).tryLock()).isFalse();
        lock.unlock();
    }

    @Test
    void aKeptAliveLeaseWhoseIssuerGoesAwayIsSignalledLost() throws Exception {
        LeaseIssuer going = newIssuer();
        FencedLockRegistry registry = closed(new FencedLockRegistry(going, Duration.ofMillis(600)));
        FencedLock lock = registry.obtain(key);
        lock.lock();
        going.close(); // renewals now fail; once the lease's expiry has passed the holder is told
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!lock.isLost() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lock.isLost()).isTrue();
        assertThatThrownBy(lock::checkHeld).isInstanceOf(IllegalStateException.class).hasMessageContaining("lost");
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void keysMustBeStringsAndLocksHaveNoConditions() {
        FencedLockRegistry registry = registry(issuerA);
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain(key).newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void executeLockedRunsUnderTheLeaseWithItsToken() throws Exception {
        FencedLockRegistry registry = registry(issuerA);
        long token = registry.executeLocked(key, () -> registry.obtain(key).token());
        assertThat(token).isPositive();
        assertThat(tryLockElsewhere(registry(issuerB), key)).isTrue();
    }

    @Test
    void obtainAllTakesEveryKeyOrNoneWithATokenPerKey() throws Exception {
        FencedLockRegistry here = registry(issuerA);
        FencedLockRegistry there = registry(issuerB);
        String a = key + "/a";
        String b = key + "/b";
        String c = key + "/c";
        FencedLock single = there.obtain(a);
        single.lock();
        long earlier = single.token();
        single.unlock();

        FencedMultiLock both = here.obtainAll(List.of(b, a));
        assertThat(here.obtainAll(List.of(a, b))).as("one lock per set of keys").isSameAs(both);
        both.lock();
        try {
            assertThat(both.tokens().keySet()).containsExactly(a, b);
            assertThat(both.token(a)).as("a's own sequence").isGreaterThan(earlier);
            assertThat(both.token(b)).isPositive();
            assertThat(there.obtain(b).tryLock()).as("a member is held for another process").isFalse();
            assertThat(there.obtainAll(List.of(c, b)).tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(tryLockElsewhere(there, c)).as("all or nothing: c was not kept").isTrue();
            here.renewLock(List.of(b, a));
            assertThat(both.isLost()).isFalse();
        } finally {
            both.unlock();
        }
        FencedMultiLock next = there.obtainAll(List.of(a, b));
        assertThat(next.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(next.token(a)).isGreaterThan(earlier);
        assertThatThrownBy(() -> next.token(c)).isInstanceOf(IllegalArgumentException.class);
        next.unlock();
        assertThatThrownBy(next::tokens).isInstanceOf(IllegalStateException.class);

        assertThatThrownBy(() -> here.obtainAll(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> here.obtainAll(List.of(a, a))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> here.obtainAll(java.util.stream.IntStream.range(0, 9).mapToObj(i -> key + i).toList()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void crossingKeySetsFromTwoProcessesNeverOverlapNorDeadlock() throws Exception {
        FencedLockRegistry here = registry(issuerA);
        FencedLockRegistry there = registry(issuerB);
        List<String> ab = List.of(key + "/a", key + "/b");
        List<String> ba = List.of(key + "/b", key + "/a");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        int w = 0;
        for (FencedLockRegistry registry : List.of(here, there, here, there)) {
            List<String> keys = w++ % 2 == 0 ? ab : ba;
            workers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 4; i++) {
                    FencedMultiLock lock = registry.obtainAll(keys);
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        tokens.add(lock.token(key + "/a"));
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
            }, threads));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(45, TimeUnit.SECONDS);
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).hasSize(16).doesNotHaveDuplicates();
    }

    @Test
    void aGroupWithAMemberThatRanOutIsLostWhole() throws Exception {
        FencedLockRegistry registry = registryWithoutKeepAlive(issuerA, Duration.ofMillis(400));
        List<String> keys = List.of(key + "/a", key + "/b");
        FencedMultiLock group = registry.obtainAll(keys);
        group.lock();
        FencedLock other = registry(issuerB).obtain(key + "/b");
        assertThat(other.tryLock(20, TimeUnit.SECONDS)).as("b's lease runs out, another holder gets it").isTrue();
        assertThatThrownBy(() -> registry.renewLock(keys)).isInstanceOf(IllegalStateException.class);
        assertThat(group.isLost()).isTrue();
        assertThatThrownBy(group::checkHeld).isInstanceOf(IllegalStateException.class).hasMessageContaining("lost");
        assertThatThrownBy(group::unlock).isInstanceOf(ConcurrentModificationException.class);
        other.unlock();
        assertThat(tryLockElsewhere(registry(issuerB), key + "/a")).as("a was released with the group").isTrue();
    }

    @Test
    void readLocksAreSharedAcrossProcessesAndKeepTheWriteLockOut() throws Exception {
        FencedReadWriteLock here = registry(issuerA).readWriteLock(key);
        FencedLockRegistry registryThere = registry(issuerB);
        FencedReadWriteLock there = registryThere.readWriteLock(key);
        assertThat(there.writeLock()).as("the write lock is the key's FencedLock").isSameAs(registryThere.obtain(key));
        here.readLock().lock();
        assertThat(there.readLock().tryLock(5, TimeUnit.SECONDS)).as("readers share the lock").isTrue();
        long readHere = here.readLock().token();
        long readThere = there.readLock().token();
        assertThat(readHere).isPositive().isNotEqualTo(readThere);
        assertThat(there.writeLock().tryLock(200, TimeUnit.MILLISECONDS)).as("no writer while readers hold it").isFalse();
        here.readLock().unlock();
        there.readLock().unlock();
        FencedLock write = there.writeLock();
        assertThat(write.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(write.token()).as("every grant takes the lock's next token").isGreaterThan(Math.max(readHere, readThere));
        assertThat(here.readLock().tryLock(200, TimeUnit.MILLISECONDS)).as("no reader while a writer holds it").isFalse();
        write.unlock();
    }

    @Test
    void eachThreadHoldsItsOwnReentrantReadLease() throws Exception {
        FencedReadLock read = registry(issuerA).readWriteLock(key).readLock();
        read.lock();
        long mine = read.token();
        assertThat(read.tryLock()).isTrue();
        assertThat(read.token()).as("a nested hold shares the thread's lease").isEqualTo(mine);
        Long theirs = threads.submit(() -> {
            read.lock();
            try {
                return read.token();
            } finally {
                read.unlock();
            }
        }).get(20, TimeUnit.SECONDS);
        assertThat(theirs).as("another thread's read lease, held beside this one").isNotEqualTo(mine).isPositive();
        assertThatThrownBy(() -> threads.submit(read::token).get()).hasCauseInstanceOf(IllegalStateException.class);
        read.unlock();
        assertThat(read.token()).as("still held after the inner unlock").isEqualTo(mine);
        read.unlock();
        assertThatThrownBy(read::token).isInstanceOf(IllegalStateException.class);
        assertThat(tryLockElsewhere(registry(issuerB), key)).as("the read lease was released").isTrue();
    }

    @Test
    void aSemaphoreHandsOutAsManyPermitsAsItHasEachWithItsSlotAndToken() throws Exception {
        FencedSemaphore here = registry(issuerA).semaphore(key, 2);
        FencedSemaphore there = registry(issuerB).semaphore(key, 2);
        FencedPermit first = here.acquire();
        FencedPermit second = there.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(List.of(first.slot(), second.slot())).containsExactlyInAnyOrder(0, 1);
        assertThat(first.lock()).isEqualTo(key + "/" + first.slot());
        assertThat(first.token()).isPositive();
        assertThat(there.tryAcquire(Duration.ofMillis(200))).as("both permits are held").isEmpty();
        first.release();
        first.release(); // a second release does nothing
        FencedPermit next = there.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(next.slot()).as("the slot given back").isEqualTo(first.slot());
        assertThat(next.token()).as("the slot's next holder fences out the one before").isGreaterThan(first.token());
        try (FencedPermit ignored = next) {
            assertThat(next.isLost()).isFalse();
        }
        second.close();
        assertThatThrownBy(() -> registry(issuerB).semaphore(key, 3).tryAcquire())
                .as("the count is fixed by the first acquire").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry(issuerA).semaphore(key, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPermitThatRanOutLosesItsSlotToTheNextHolderAndItsReleaseThrows() throws Exception {
        FencedPermit paused = registryWithoutKeepAlive(issuerA, Duration.ofMillis(400)).semaphore(key, 1).acquire();
        FencedPermit next = registry(issuerB).semaphore(key, 1).tryAcquire(Duration.ofSeconds(20))
                .orElseThrow(() -> new AssertionError("the paused permit's lease runs out, the slot passes on"));
        assertThat(next.slot()).isEqualTo(paused.slot()).isZero();
        assertThat(next.token()).isGreaterThan(paused.token());
        assertThatThrownBy(paused::release).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("newer holder of the slot");
        next.release();
    }

    /** On this thread (the lock is the thread's): the lease was released, so it is free at once. */
    private static boolean tryLockElsewhere(FencedLockRegistry registry, String k) throws InterruptedException {
        FencedLock lock = registry.obtain(k);
        boolean got = lock.tryLock(5, TimeUnit.SECONDS);
        if (got) {
            lock.unlock();
        }
        return got;
    }
}
