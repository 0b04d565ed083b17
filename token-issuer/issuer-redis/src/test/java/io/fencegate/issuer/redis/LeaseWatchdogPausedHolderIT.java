package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.testing.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A library user's holder (a child JVM holding a lease through {@link RedisLeaseIssuer} and
 * {@link io.fencegate.issuer.LeaseWatchdog}) is stopped with SIGSTOP past its ttl, the lock is
 * granted to someone else meanwhile, and the holder is continued. From the moment it runs again it
 * must not claim to hold the lease, and it must learn that it lost it. Both processes read the same
 * monotonic clock (System.nanoTime is CLOCK_MONOTONIC on Linux), so the holder's report lines are
 * judged against the time of the SIGCONT. The same for a permit taken with a lock-delay.
 */
@Timeout(120)
class LeaseWatchdogPausedHolderIT {

    private static final String PREFIX = "fencegate-paused:";
    private static final String LOCK = "orders/paused";
    private static final Duration TTL = Duration.ofMillis(1000);

    @TempDir
    Path dir;

    private RedisServer server;
    private Process holder;

    @AfterEach
    void stop() throws Exception {
        if (holder != null) {
            holder.destroyForcibly();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        if (server != null) {
            server.kill();
        }
    }

    @Test
    void aHolderStoppedPastItsTtlNeverClaimsTheLeaseAfterItContinuesAndLearnsItLostIt() throws Exception {
        server = RedisServer.start(dir.resolve("redis"));
        Path mark = dir.resolve("tokens.mark");
        BlockingQueue<String> lines = startHolder(mark, LOCK);
        awaitLine(lines, "acquired", 60);
        Thread.sleep(TTL.toMillis() * 2); // renewals keep it past its ttl
        lines.clear();

        signal("STOP");
        Lease next;
        try (RedisLeaseIssuer other = new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(PREFIX)
                .commandTimeout(Duration.ofSeconds(2)).highWaterMark(new FileTokenHighWaterMark(mark)))) {
            // the stopped holder cannot renew: the lock is handed on once its ttl passed
            next = other.acquire(LOCK, TTL.multipliedBy(10), TTL.multipliedBy(5)).toCompletableFuture()
                    .get(20, TimeUnit.SECONDS).orElseThrow();
            Thread.sleep(TTL.toMillis());
            long continuedAt = System.nanoTime();
            signal("CONT");

            List<String> after = new ArrayList<>();
            String lost = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (lost == null && System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    continue;
                }
                if (line.startsWith("lost")) {
                    lost = line;
                } else if (line.startsWith("t=") && timeOf(line) >= continuedAt) {
                    after.add(line);
                }
            }
            assertThat(after).as("report lines taken after SIGCONT, while %s holds the lock", next.token())
                    .noneMatch(line -> line.endsWith("holds=true"));
            assertThat(lost).as("the holder learned it lost the lease").isNotNull();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
            other.release(next.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The same with a permit of a one-permit semaphore, taken with a lock-delay: the slot goes to
     * the next holder, with a higher token, no sooner than the delay after the stopped holder's
     * permit could have expired (it held it when stopped), and the holder never claims it after.
     */
    @Test
    void aPermitHolderStoppedPastItsTtlLosesItsSlotAfterTheLockDelayAndNeverClaimsItAgain() throws Exception {
        server = RedisServer.start(dir.resolve("redis"));
        Path mark = dir.resolve("tokens.mark");
        Duration delay = Duration.ofSeconds(1);
        BlockingQueue<String> lines = startHolder(mark, "pool/paused", "1", Long.toString(delay.toMillis()));
        String acquired = awaitLine(lines, "acquired", 60);
        long staleToken = Long.parseLong(acquired.substring("acquired token=".length(), acquired.indexOf(' ', "acquired ".length())));
        Thread.sleep(TTL.toMillis() * 2); // renewals keep it past its ttl
        lines.clear();

        long stoppedAt = System.nanoTime();
        signal("STOP");
        try (RedisLeaseIssuer other = new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(PREFIX)
                .commandTimeout(Duration.ofSeconds(2)).highWaterMark(new FileTokenHighWaterMark(mark)))) {
            Lease next = other.acquirePermit("pool/paused", 1, TTL.multipliedBy(10), Duration.ofSeconds(15), delay)
                    .toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("the slot never freed"));
            long grantedAt = System.nanoTime();
            assertThat(Duration.ofNanos(grantedAt - stoppedAt)).as("the slot was granted again within the stopped permit's delay")
                    .isGreaterThanOrEqualTo(delay.minusMillis(100));
            assertThat(next.slot()).isZero();
            assertThat(next.token()).isGreaterThan(staleToken);
            long continuedAt = System.nanoTime();
            signal("CONT");
            List<String> after = new ArrayList<>();
            String lost = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (lost == null && System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    continue;
                }
                if (line.startsWith("lost")) {
                    lost = line;
                } else if (line.startsWith("t=") && timeOf(line) >= continuedAt) {
                    after.add(line);
                }
            }
            assertThat(after).as("report lines taken after SIGCONT, while %s holds the slot", next.token())
                    .noneMatch(line -> line.endsWith("holds=true"));
            assertThat(lost).as("the holder learned it lost the permit").isNotNull();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
            other.release(next.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Starts {@link PausedHolder} on {@code lock} (and, for a permit, its count and lock-delay); its stdout lines go to the queue. */
    private BlockingQueue<String> startHolder(Path mark, String lock, String... permit) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")), PausedHolder.class.getName(),
                server.uri(), PREFIX, mark.toString(), lock, Long.toString(TTL.toMillis())));
        command.addAll(List.of(permit));
        holder = new ProcessBuilder(command).redirectError(dir.resolve("holder.err").toFile()).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (java.io.IOException ignored) {
                // the holder ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    private static long timeOf(String line) {
        return Long.parseLong(line.substring(2, line.indexOf(' ')));
    }

    private void signal(String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(holder.pid())).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }

    private String awaitLine(BlockingQueue<String> lines, String prefix, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            assertThat(holder.isAlive()).as("holder alive; stderr: %s", dir.resolve("holder.err")).isTrue();
        }
        throw new AssertionError("no '" + prefix + "' line from the holder within " + seconds + " s; stderr in "
                + dir.resolve("holder.err") + ": " + Files.readString(dir.resolve("holder.err")));
    }
}
