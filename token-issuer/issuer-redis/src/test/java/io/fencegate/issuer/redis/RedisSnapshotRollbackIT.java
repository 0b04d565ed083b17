package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Redis that crashes and comes back from an older snapshot (RDB, or an AOF with
 * {@code appendfsync everysec} that lost its last second) still has a token counter and a ceiling,
 * only older ones: nothing is missing, so "repair a missing counter" does not help. Tokens must
 * still never repeat, for the issuer that runs across the crash and for a new one.
 *
 * <p>The rollback is forced deterministically: the persistence files are copied aside at the
 * snapshot point and put back before the restart, which is what a crash with an older file leaves.
 */
@Timeout(120)
class RedisSnapshotRollbackIT extends OwnRedisServers {

    private static final String LOCK = "orders/42";

    private RedisServer server;

    @Test
    void tokensNeverRepeatAfterRestoreFromOlderRdbSnapshot() throws Exception {
        fromOlderRdbSnapshot(this::tokensNeverRepeatAfterRollback);
    }

    @Test
    void tokensNeverRepeatAfterRestoreFromOlderAppendOnlyFile() throws Exception {
        fromOlderAppendOnlyFile(this::tokensNeverRepeatAfterRollback);
    }

    /** Runs {@code scenario} on a server whose snapshot is an RDB file written by SAVE. */
    private void fromOlderRdbSnapshot(Rollback scenario) throws Exception {
        server = server("redis", "--dbfilename", "dump.rdb");
        scenario.run(() -> assertThat(server.command("SAVE")).isEqualTo("+OK"), () -> { });
    }

    /** Runs {@code scenario} on a server in AOF mode, its snapshot a copy of the AOF. */
    private void fromOlderAppendOnlyFile(Rollback scenario) throws Exception {
        server = server("redis", "--appendonly", "yes", "--appendfsync", "everysec");
        Path aof = dir.resolve("redis/appendonlydir");
        Path older = dir.resolve("aof-at-snapshot");
        // Redis writes the AOF before it replies, so a copy taken now holds exactly the grants so far;
        // the restore stands for the second of writes that everysec loses in a crash.
        scenario.run(() -> copyTree(aof, older), () -> {
            deleteTree(aof);
            copyTree(older, aof);
        });
    }

    /** 5 grants, snapshot, 5 more grants, kill -9, restart from the snapshot, grant again. */
    private void tokensNeverRepeatAfterRollback(Step snapshot, Step restoreOlderFiles) throws Exception {
        RedisLeaseIssuer running = newIssuer(server);
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            before.add(TokenCounterLossContract.grant(running, LOCK));
        }
        snapshot.run();
        for (int i = 0; i < 5; i++) {
            before.add(TokenCounterLossContract.grant(running, LOCK));
        }
        server.kill();
        restoreOlderFiles.run();
        server.startAgain();
        assertThat(server.command("EXISTS " + PREFIX + "token-counter")).as("the snapshot kept the counter").isEqualTo(":1");

        long highestBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        List<Long> after = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // a new instance first (it has seen no token, so only Redis's state can tell it), then
            // the one that ran across the crash, reconnecting by itself
            after.add(TokenCounterLossContract.grant(newIssuer(server), LOCK));
            after.add(TokenCounterLossContract.grant(running, LOCK));
        }
        assertThat(after).as("tokens granted after the rollback; before it: %s", before)
                .allSatisfy(token -> assertThat(token).isGreaterThan(highestBefore))
                .doesNotHaveDuplicates();
        // no token is granted twice, so wasGranted cannot mistake a new grant for an old one
        for (long token : after) {
            assertThat(running.wasGranted(LOCK, token).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * An issuer whose acquires skip the run check (an armed copy of the script, see
     * RunCheckShortcut) must check again on a server restored from an older snapshot. Another
     * issuer handed out the newest tokens, so the first one's highest-token check cannot catch it.
     */
    @Test
    void anIssuerSkippingTheRunCheckChecksAgainAfterRestoreFromOlderRdbSnapshot() throws Exception {
        fromOlderRdbSnapshot(this::tokensNeverRepeatAfterRollbackUnderAnArmedIssuer);
    }

    @Test
    void anIssuerSkippingTheRunCheckChecksAgainAfterRestoreFromOlderAppendOnlyFile() throws Exception {
        fromOlderAppendOnlyFile(this::tokensNeverRepeatAfterRollbackUnderAnArmedIssuer);
    }

    private void tokensNeverRepeatAfterRollbackUnderAnArmedIssuer(Step snapshot, Step restoreOlderFiles) throws Exception {
        RedisLeaseIssuer armed = newIssuer(server);
        RedisLeaseIssuer other = newIssuer(server);
        List<Long> before = new ArrayList<>();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            before.add(TokenCounterLossContract.grant(armed, LOCK));
            return armed.skipsRunCheck();
        });
        snapshot.run();
        for (int i = 0; i < 5; i++) {
            before.add(TokenCounterLossContract.grant(other, LOCK));
        }
        server.kill();
        restoreOlderFiles.run();
        server.startAgain();

        long highestBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(TokenCounterLossContract.grant(armed, LOCK)).as("before the rollback: %s", before)
                .isGreaterThan(highestBefore);
        assertThat(TokenCounterLossContract.grant(other, LOCK)).isGreaterThan(highestBefore);
    }

    /** The same for permits, whose script has an armed copy of its own. */
    @Test
    void anIssuerWhosePermitsSkipTheRunCheckChecksAgainAfterRestoreFromOlderRdbSnapshot() throws Exception {
        fromOlderRdbSnapshot(this::permitTokensNeverRepeatAfterRollbackUnderAnArmedIssuer);
    }

    private void permitTokensNeverRepeatAfterRollbackUnderAnArmedIssuer(Step snapshot, Step restoreOlderFiles) throws Exception {
        RedisLeaseIssuer armed = newIssuer(server);
        RedisLeaseIssuer other = newIssuer(server);
        List<Long> before = new ArrayList<>();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            before.add(permit(armed));
            return armed.permitsSkipRunCheck();
        });
        snapshot.run();
        for (int i = 0; i < 5; i++) {
            before.add(permit(other));
        }
        server.kill();
        restoreOlderFiles.run();
        server.startAgain();

        long highestBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(permit(armed)).as("before the rollback: %s", before).isGreaterThan(highestBefore);
        assertThat(permit(other)).isGreaterThan(highestBefore);
    }

    /** A permit of a semaphore of 4, granted and released: its token (retried while the issuer reconnects). */
    private static long permit(RedisLeaseIssuer issuer) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                io.fencegate.issuer.Lease lease = issuer.acquirePermit("pool", 4, Duration.ofSeconds(30), Duration.ofSeconds(5))
                        .toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow();
                issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                return lease.token();
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof io.fencegate.issuer.IssuerUnavailableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    /**
     * Defence in depth: a rollback that keeps the run_id and the master_replid ({@code DEBUG RELOAD
     * NOSAVE} loads the older RDB into the running server) is still caught by an issuer that handed
     * out a higher token. A new issuer would not catch it: neither id changes.
     */
    @Test
    void counterNeverFallsBelowATokenThisIssuerHandedOut() throws Exception {
        server = server("redis", "--dbfilename", "dump.rdb", "--enable-debug-command", "yes");
        RedisLeaseIssuer running = newIssuer(server);
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            before.add(TokenCounterLossContract.grant(running, LOCK));
        }
        assertThat(server.command("SAVE")).isEqualTo("+OK");
        for (int i = 0; i < 5; i++) {
            before.add(TokenCounterLossContract.grant(running, LOCK));
        }
        assertThat(server.command("DEBUG RELOAD NOSAVE")).isEqualTo("+OK");
        assertThat(server.command("GET " + PREFIX + "token-counter")).as("rolled back").isEqualTo("$1");

        assertThat(TokenCounterLossContract.grant(running, LOCK)).isGreaterThan(before.stream().mapToLong(Long::longValue).max().orElseThrow());
    }

    /**
     * SWAPDB to a database without fencegate's keys looks like FLUSHALL: the counter is missing and
     * is re-created at the mark. (SWAPDB to a database holding an older copy of the keys keeps the
     * run_id and master_replid: only an issuer that handed out a higher token catches that.)
     */
    @Test
    void swapdbToADatabaseWithoutTheCounterNeverRepeatsTokens() throws Exception {
        server = server("redis");
        RedisLeaseIssuer running = newIssuer(server);
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            before.add(TokenCounterLossContract.grant(running, LOCK));
        }
        assertThat(server.command("SWAPDB 0 1")).isEqualTo("+OK");
        long highestBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(TokenCounterLossContract.grant(newIssuer(server), LOCK)).isGreaterThan(highestBefore);
        assertThat(TokenCounterLossContract.grant(running, LOCK)).isGreaterThan(highestBefore);
    }

    /**
     * A lease released before the crash reappears from the snapshot, still holding its lock key.
     * Its holder must not get it back by renewing: after the snapshot another lease held the lock.
     */
    @Test
    void aLeaseRestoredFromAnOlderSnapshotCannotBeRenewed() throws Exception {
        server = server("redis", "--dbfilename", "dump.rdb");
        RedisLeaseIssuer running = newIssuer(server);
        Lease old = acquire(running).orElseThrow();
        assertThat(server.command("SAVE")).isEqualTo("+OK");
        assertThat(running.release(old.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        Lease newer = acquire(running).orElseThrow();
        assertThat(newer.token()).isGreaterThan(old.token());
        server.kill();
        server.startAgain();

        RedisLeaseIssuer fresh = newIssuer(server);
        assertThat(renewRetrying(running, old.leaseId())).as("renew of a lease from before the rollback").isEmpty();
        assertThat(renewRetrying(fresh, old.leaseId())).as("renew through another issuer").isEmpty();
        assertThat(renewRetrying(running, newer.leaseId())).as("its lock key was lost").isEmpty();
        // the lock is not wedged for good: it is free at the latest when the old key's ttl ends,
        // and the next grant is above every token handed out before
        Lease next = TokenCounterLossContract.acquireRetrying(fresh, LOCK).orElseThrow();
        assertThat(next.token()).isGreaterThan(newer.token());
    }

    private static Optional<Lease> acquire(RedisLeaseIssuer issuer) throws Exception {
        return issuer.acquire(LOCK, Duration.ofSeconds(3), Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Renews, retrying while the client reconnects after the restart; bounded. */
    private static Optional<Lease> renewRetrying(RedisLeaseIssuer issuer, String leaseId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return issuer.renew(leaseId).toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private interface Rollback {
        void run(Step snapshot, Step restoreOlderFiles) throws Exception;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
