package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.Semaphores;
import io.fencegate.issuer.testkit.SemaphoreContract;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-write lease and fenced semaphore contracts ({@link SemaphoreContract} runs both) on a real
 * (in-process) ZooKeeper server, tokens from czxid ({@link CversionZooKeeperReadWriteAndSemaphoreIT}:
 * from cversion); and lock-delay with read leases, which the contracts leave to each backend
 * (ZooKeeper keeps one merged mark for a lock's read leases, {@link LockDelays}).
 */
class ZooKeeperReadWriteAndSemaphoreIT extends SemaphoreContract {

    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();
    private final String root = "/fencegate-rw-" + UUID.randomUUID().toString().substring(0, 8);

    @Override
    protected LeaseIssuer newIssuer() {
        return ZooKeeperLeaseIssuer.builder()
                .connectString(ZK.connectString())
                .root(root)
                .tokenMode(TokenMode.ZXID)
                .build();
    }

    @Test
    void aReadLeaseThatExpiresHoldsWritersOffForItsDelayButNotReaders() throws Exception {
        LeaseIssuer paused = issuer();
        List<LeaseEnd> ended = endsHeardBy(paused);
        LeaseIssuer other = issuer();
        String lock = lock("rw-delay");
        Duration delay = Duration.ofSeconds(1);
        Lease stale = await(paused.acquire(lock, LeaseMode.READ, Duration.ofMillis(2500), Duration.ZERO, delay)).orElseThrow();
        // A second reader with a shorter life merges into the mark, never shortens it.
        Lease brief = await(other.acquire(lock, LeaseMode.READ, Duration.ofMillis(1500), Duration.ZERO, delay)).orElseThrow();
        assertThat(await(other.release(brief.leaseId()))).as("released while the other reader holds").isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ended.contains(LeaseEnd.EXPIRED));
        Lease reader = await(other.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ZERO, Duration.ZERO))
                .orElseThrow(() -> new AssertionError("a read lease's delay held a reader off"));
        assertThat(await(other.release(reader.leaseId()))).isTrue();
        Lease writer = await(other.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        assertThat(System.currentTimeMillis()).as("the writer waited out the expired reader's delay")
                .isGreaterThanOrEqualTo(stale.expiresAt() + delay.toMillis() - 100);
        assertThat(writer.token()).isGreaterThan(reader.token());
    }

    @Test
    void releasedReadLeasesClearTheirMarkOnceTheLastOneIsGone() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String lock = lock("rw-delay-released");
        Duration delay = Duration.ofMinutes(1);
        Lease r1 = await(a.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ZERO, delay)).orElseThrow();
        Lease r2 = await(b.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ZERO, delay)).orElseThrow();
        assertThat(await(b.renew(r1.leaseId()))).isPresent();
        assertThat(await(b.release(r1.leaseId()))).isTrue();
        assertThat(await(a.release(r2.leaseId()))).isTrue();
        assertThat(await(a.acquire(lock, LeaseMode.WRITE, LONG_TTL, Duration.ZERO, Duration.ZERO)))
                .as("two voluntary ends: no delay left").isPresent();
    }

    @Test
    void anExpiredWritersDelayHoldsReadersOff() throws Exception {
        LeaseIssuer paused = issuer();
        List<LeaseEnd> ended = endsHeardBy(paused);
        LeaseIssuer other = issuer();
        String lock = lock("rw-writer-delay");
        Duration delay = Duration.ofSeconds(1);
        Lease stale = await(paused.acquire(lock, LeaseMode.WRITE, Duration.ofMillis(1000), Duration.ZERO, delay)).orElseThrow();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ended.contains(LeaseEnd.EXPIRED));
        Lease reader = await(other.acquire(lock, LeaseMode.READ, LONG_TTL, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(stale.expiresAt() + delay.toMillis() - 100);
        assertThat(reader.token()).isGreaterThan(stale.token());
    }

    /** Runs library.md's read-write and semaphore snippet. */
    @Test
    void librarySnippetRuns() throws Exception {
        LeaseIssuer issuer = issuer();
        Duration ttl = LONG_TTL;
        {
            // library.md's snippet, as printed there
            // Any number of readers, or one writer; a waiting writer holds back readers that come after it.
            Optional<Lease> read = issuer.acquire("reports/q3", LeaseMode.READ, ttl, Duration.ofSeconds(2), Duration.ZERO)
                    .toCompletableFuture().join();                 // its token fences reads, never writes
            // A store asks the mode of a token, and refuses a write with a read lease's:
            Optional<LeaseMode> mode = issuer.grantedMode("reports/q3", read.orElseThrow().token())
                    .toCompletableFuture().join();                 // Optional[READ]
            issuer.release(read.get().leaseId()).toCompletableFuture().join();
            // At most 4 holders at once: a permit is a write lease on one slot's lock, "exports/0" .. "exports/3".
            Optional<Lease> permit = issuer.acquirePermit("exports", 4, ttl, Duration.ofSeconds(5))
                    .toCompletableFuture().join();                 // permit.get().lock(): its slot's lock; slot(): the slot
            // the snippet ends
            assertThat(mode).contains(LeaseMode.READ);
            assertThat(permit).get().extracting(Lease::lock).isEqualTo(Semaphores.slotLock("exports", permit.get().slot()));
        }
    }

    @Test
    void aPlainAcquireOfASlotsLockTakesThatPermitAndNeverOneTooMany() throws Exception {
        LeaseIssuer a = issuer();
        String sem = lock("sem-plain");
        Lease plain = await(a.acquire(Semaphores.slotLock(sem, 0), LONG_TTL, Duration.ZERO)).orElseThrow();
        Lease permit = await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO)).orElseThrow();
        assertThat(permit.slot()).isEqualTo(1);
        assertThat(await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ofMillis(300)))).as("both slots held").isEmpty();
        assertThat(await(a.release(plain.leaseId()))).isTrue();
        assertThat(await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO))).get().extracting(Lease::slot).isEqualTo(0);
    }

    /**
     * A permit acquire first tries the slot its issuer released last; another instance may have
     * taken that slot since. The try is then refused like any grant on a held lock, and the acquire
     * goes on to a free slot, or, with none free, waits for one.
     */
    @Test
    void aSlotReleasedHereButTakenElsewhereSinceIsPassedOverAndTheAcquireStillWaits() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String sem = lock("sem-freed-elsewhere");
        Lease first = await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO)).orElseThrow();
        assertThat(await(a.release(first.leaseId()))).isTrue();
        Lease takenByB = await(b.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO)).orElseThrow();
        assertThat(takenByB.slot()).as("the slot a released").isEqualTo(first.slot());
        Lease other = await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO))
                .orElseThrow(() -> new AssertionError("a's freed slot was taken, but the other slot was free"));
        assertThat(other.slot()).isNotEqualTo(takenByB.slot());
        assertThat(await(a.release(other.leaseId()))).isTrue();
        Lease alsoTakenByB = await(b.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO)).orElseThrow();
        assertThat(alsoTakenByB.slot()).isEqualTo(other.slot());
        java.util.concurrent.CompletableFuture<Optional<Lease>> waiting =
                a.acquirePermit(sem, 2, LONG_TTL, Duration.ofSeconds(60)).toCompletableFuture();
        Thread.sleep(300);
        assertThat(waiting).as("both slots held by b").isNotDone();
        assertThat(await(b.release(takenByB.leaseId()))).isTrue();
        Lease granted = await(waiting).orElseThrow(() -> new AssertionError("the waiter missed the slot b freed"));
        assertThat(granted.slot()).isEqualTo(takenByB.slot());
        assertThat(granted.token()).isGreaterThan(takenByB.token());
    }

    @Test
    void permitWaitersAreServedInTheOrderTheyCame() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String sem = lock("sem-fifo");
        Lease held = await(a.acquirePermit(sem, 1, LONG_TTL, Duration.ZERO)).orElseThrow();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> lineLength(sem) == 0); // the holder left the line
        java.util.concurrent.CompletableFuture<Optional<Lease>> first =
                b.acquirePermit(sem, 1, LONG_TTL, Duration.ofSeconds(60)).toCompletableFuture();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> lineLength(sem) == 1);
        java.util.concurrent.CompletableFuture<Optional<Lease>> second =
                a.acquirePermit(sem, 1, LONG_TTL, Duration.ofSeconds(60)).toCompletableFuture();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> lineLength(sem) == 2);
        assertThat(await(a.release(held.leaseId()))).isTrue();
        Lease next = await(first).orElseThrow(() -> new AssertionError("the first waiter was passed over"));
        Thread.sleep(300);
        assertThat(second).as("the second waits for the first's permit").isNotDone();
        assertThat(await(b.release(next.leaseId()))).isTrue();
        assertThat(await(second).orElseThrow().token()).isGreaterThan(next.token());
    }

    /** The waiters in a semaphore's line, read from ZooKeeper. */
    private long lineLength(String semaphore) throws Exception {
        try (org.apache.curator.framework.CuratorFramework client = org.apache.curator.framework.CuratorFrameworkFactory
                .newClient(ZK.connectString(), new org.apache.curator.retry.RetryNTimes(3, 100))) {
            client.start();
            return client.getChildren().forPath(new LockNodes(root).semaphorePath(semaphore)).size();
        }
    }
}
