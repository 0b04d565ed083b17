package io.fencegate.gateway.mutants;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.check.Report;
import io.fencegate.gateway.mutants.MutantDeployment.Run;
import io.fencegate.gateway.mutants.MutantDeployment.Wrapping;
import io.fencegate.testing.ScratchDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checker against planted bugs: each test opens real backends, runs {@code fencegate check}
 * against a gateway in front of them unmutated (the control, which must be VALID) and then against
 * the same backends with one guarantee switched off by a decorator of the issuer or the store (the
 * mutant, which must be caught: exit 1). The score, mutants caught out of mutants planted, is
 * printed at the end. Results of every run stay in {@code target/mutants/}.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class CheckerCatchesMutantsIT {
    private static final Path RESULTS = Path.of("target", "mutants");
    /** Mutant name to whether the checker caught it. */
    private static final Map<String, Boolean> SCORE = new ConcurrentSkipListMap<>();

    @AfterAll
    static void printScore() {
        long caught = SCORE.values().stream().filter(c -> c).count();
        System.out.println("mutants caught: " + caught + " of " + SCORE.size() + " planted " + SCORE);
    }

    @Test
    void aStoreThatSkipsTheGuardIsCaught() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create(ScratchDatabase.Kind.MARIADB, "fg_mut_");
                MutantDeployment deployment = MutantDeployment.open("""
                        issuer: { type: sql, url: "%1$s", user: %2$s, password: "" }
                        stores:
                          main: { type: jdbc, url: "%1$s", user: %2$s, password: "" }
                        """.formatted(db.url(), db.user()))) {
            controlIsValidAndMutantIsCaught(deployment, "skip-guard", "counter",
                    Wrapping.store(real -> new SkipGuardStore(real, db.url(), db.user())));
        }
    }

    @Test
    void aFencedReadThatRaisesNoFenceIsCaught() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "mutant-files");
        try (TestingServer zookeeper = new TestingServer(true);
                MutantDeployment deployment = MutantDeployment.open("""
                        issuer: { type: zookeeper, connectString: "%s" }
                        stores:
                          main: { type: files, dir: "%s" }
                        """.formatted(zookeeper.getConnectString(), dir))) {
            controlIsValidAndMutantIsCaught(deployment, "skip-fence", "counter", Wrapping.store(UnfencedReadStore::new));
        } finally {
            deleteTree(dir);
        }
    }

    @Test
    void anIssuerThatGrantsOneLockTwiceOnceInNIsCaught() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true);
                MutantDeployment deployment = MutantDeployment.open("""
                        issuer: { type: zookeeper, connectString: "%s" }
                        stores:
                          main: { type: jdbc, url: "jdbc:h2:mem:fg-mut-%s;DB_CLOSE_DELAY=-1" }
                        """.formatted(zookeeper.getConnectString(), UUID.randomUUID()))) {
            controlIsValidAndMutantIsCaught(deployment, "twin-grant", "mutex", Wrapping.issuer(TwinGrantIssuer::new));
        }
    }

    @Test
    void anIssuerThatLetsAnExpiredLeaseRenewIsCaught() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create(ScratchDatabase.Kind.POSTGRES, "fg_mut_");
                MutantDeployment deployment = MutantDeployment.open("""
                        issuer: { type: sql, url: "%1$s", user: %2$s, password: "" }
                        stores:
                          main: { type: jdbc, url: "%1$s", user: %2$s, password: "" }
                        """.formatted(db.url(), db.user()))) {
            controlIsValidAndMutantIsCaught(deployment, "expired-renew", "mutex", Wrapping.issuer(ExpiredRenewIssuer::new));
        }
    }

    @Test
    void aStoreThatAnswersBeforeItCommitsIsCaught() throws Exception {
        String prefix = "fg-mut-" + UUID.randomUUID() + ":";
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "mutant-redis");
        try (ScratchDatabase db = ScratchDatabase.create(ScratchDatabase.Kind.POSTGRES, "fg_mut_");
                MutantDeployment deployment = MutantDeployment.open("""
                        issuer: { type: redis, uri: "redis://127.0.0.1:6379", keyPrefix: "%s", highWaterMarkFile: "%s" }
                        stores:
                          main: { type: postgres, host: 127.0.0.1, database: test, schema: %s, user: %s, password: unused }
                        """.formatted(prefix, dir.resolve("tokens.mark"), db.name(), db.user()))) {
            controlIsValidAndMutantIsCaught(deployment, "answer-before-commit", "lock-set", Wrapping.store(AnswerBeforeCommitStore::new));
        } finally {
            deleteRedisKeys(prefix);
            deleteTree(dir);
        }
    }

    private static void controlIsValidAndMutantIsCaught(MutantDeployment deployment, String mutant, String workload,
            Wrapping wrapping) throws Exception {
        Run control = deployment.check(Wrapping.CONTROL, workload, RESULTS.resolve(mutant).resolve("control"));
        System.out.println("control of " + mutant + " (" + workload + "): " + control);
        assertThat(control.exit()).as("the control of " + mutant + " (" + workload + "): " + control).isEqualTo(Report.VALID);
        Run mutated = deployment.check(wrapping, workload, RESULTS.resolve(mutant).resolve("mutant"));
        SCORE.put(mutant, mutated.exit() == Report.VIOLATIONS);
        System.out.println("mutant " + mutant + " (" + workload + "): " + mutated);
        assertThat(mutated.exit()).as("mutant " + mutant + " (" + workload + "): " + mutated).isEqualTo(Report.VIOLATIONS);
    }

    private static void deleteRedisKeys(String prefix) {
        try (var redis = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379"); var c = redis.connect()) {
            var keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (var all = Files.walk(dir)) {
            all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
