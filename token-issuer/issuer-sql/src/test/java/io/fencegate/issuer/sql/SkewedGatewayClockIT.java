package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A gateway whose clock is hours off changes nobody's lease: expiry is the database's to judge.
 * Each "gateway" here is a JVM of its own under libfaketime (Debian's {@code faketime}), on the
 * shared PostgreSQL; this JVM's clock is the true one. (A JVM under libfaketime starts slowly
 * here, 40-80 s on a loaded machine: hence one child per skew.)
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SkewedGatewayClockIT {

    private static final long CHILD_TTL_MS = 8000;
    private static SqlTestDatabase db;
    private static SqlLeaseIssuer honest;

    @BeforeAll
    static void start() throws Exception {
        db = SqlTestDatabase.create(SqlTestDatabase.Kind.POSTGRES);
        honest = db.issuer().build(); // also migrates before any child starts
    }

    @AfterAll
    static void stop() throws Exception {
        if (honest != null) {
            honest.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"+3h", "-3h"})
    void aGatewayHoursOffNeitherTakesALiveLeaseNorGrantsOneLongerOrShorterThanItsTtl(String skew) throws Exception {
        String heldLock = "skew/held/" + UUID.randomUUID();
        String freeLock = "skew/free/" + UUID.randomUUID();
        Lease held = honest.acquire(heldLock, Duration.ofMinutes(10), Duration.ZERO).toCompletableFuture()
                .get(20, TimeUnit.SECONDS).orElseThrow();

        List<String> out = runSkewed(skew, heldLock, freeLock);
        long exitedAt = System.nanoTime();
        long childClock = out.stream().filter(l -> l.startsWith("clock ")).mapToLong(l -> Long.parseLong(l.substring(6)))
                .findFirst().orElseThrow(() -> new AssertionError("no clock line in " + out));
        List<String> answers = out.stream().filter(l -> l.startsWith("granted ") || l.equals("held")).toList();
        assertThat(Math.abs(childClock - System.currentTimeMillis())).as("the child's clock is off").isGreaterThan(3_000_000L);
        assertThat(answers).as("answers in %s", out).hasSize(2);

        // A gateway 3 h ahead would judge a 10-minute lease long expired by its own clock.
        assertThat(answers.get(0)).as("a gateway at %s on a live lease", skew).isEqualTo("held");
        assertThat(honest.renew(held.leaseId()).toCompletableFuture().get(20, TimeUnit.SECONDS)).isPresent();

        assertThat(answers.get(1)).startsWith("granted ");
        long childToken = Long.parseLong(answers.get(1).substring("granted ".length()));
        // A gateway 3 h behind would have granted a lease that had ended before it began...
        Optional<Lease> early = honest.acquire(freeLock, Duration.ofSeconds(5), Duration.ZERO).toCompletableFuture().get(20, TimeUnit.SECONDS);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - exitedAt);
        if (elapsedMs < CHILD_TTL_MS - 2000) {
            assertThat(early).as("a gateway at %s: its lease held %d ms after it exited", skew, elapsedMs).isEmpty();
        }
        // ...and one 3 h ahead one that lasts 3 h: it ends by its ttl, by the database's clock.
        Lease next = early.isPresent() ? early.get() : honest.acquire(freeLock, Duration.ofSeconds(5), Duration.ofSeconds(30))
                .toCompletableFuture().get(40, TimeUnit.SECONDS)
                .orElseThrow(() -> new AssertionError("a gateway at " + skew + " held the lock past its ttl + 30 s"));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - exitedAt)).isLessThan(CHILD_TTL_MS + 5000);
        assertThat(next.token()).isGreaterThan(childToken);
    }

    private static List<String> runSkewed(String skew, String heldLock, String freeLock) throws Exception {
        Path out = Files.createTempFile(Path.of(System.getProperty("java.io.tmpdir")), "skewed", ".out");
        ProcessBuilder builder = new ProcessBuilder("faketime", "-f", skew,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlogback.configurationFile=none", "-cp", System.getProperty("java.class.path"), SkewedClockGateway.class.getName(),
                db.url(), db.user(), heldLock, freeLock, Long.toString(CHILD_TTL_MS))
                .redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        Process process = builder.start();
        try {
            assertThat(process.waitFor(150, TimeUnit.SECONDS)).as("the skewed gateway finished").isTrue();
            return Files.readAllLines(out, StandardCharsets.UTF_8);
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }
}
