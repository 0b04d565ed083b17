package io.fencegate.examples.files;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.files.FilesStoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The nightly report job: takes the lease for the night's report, computes it, writes
 * {@code reports/<date>.txt} in a files store with the lease's token. A run that stalled (a long GC,
 * a frozen VM) while a newer run took over and wrote the report is refused: its older report never
 * replaces the newer one, and the job exits 3 so the scheduler sees it did not write.
 *
 * <pre>
 * java io.fencegate.examples.files.NightlyReport /srv/reports 127.0.0.1:2181 2026-11-22 [computeMs=500] [ttlMs=60000]
 * </pre>
 * Exit codes: 0 written, 3 refused (a newer run wrote the report), 4 the lock stayed busy.
 */
public final class NightlyReport {

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: NightlyReport <reports-dir> <zookeeper-connect-string> <date> [computeMs] [ttlMs]");
            System.exit(2);
        }
        Path root = Files.createDirectories(Path.of(args[0])); // the store never creates its root
        String date = args[2];
        long computeMs = args.length > 3 ? Long.parseLong(args[3]) : 500;
        Duration ttl = Duration.ofMillis(args.length > 4 ? Long.parseLong(args[4]) : 60_000);
        LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(args[1])
                .operationTimeout(Duration.ofSeconds(5)).build();
        int exit;
        try (FilesGuardedStore reports = FilesGuardedStore.open(new FilesStoreOptions()
                .root(root).name("reports").rule(GuardRule.STRICT))) {
            exit = run(issuer, reports, date, computeMs, ttl);
        } finally {
            issuer.close();
        }
        System.exit(exit);
    }

    private static int run(LeaseIssuer issuer, FilesGuardedStore reports, String date, long computeMs, Duration ttl)
            throws InterruptedException {
        Optional<Lease> acquired = issuer.acquire("reports/" + date, ttl, Duration.ofSeconds(30)).toCompletableFuture().join();
        if (acquired.isEmpty()) {
            System.out.println("the lock for " + date + " stayed busy: another run is at it");
            return 4;
        }
        Lease lease = acquired.get();
        try {
            System.out.println("run with token " + lease.token() + " computing the report for " + date);
            Thread.sleep(computeMs); // the long part of the job, and where a pause hurts
            String report = "report for " + date + ", written by the run with token " + lease.token()
                    + " at " + Instant.now() + "\n";
            WriteResult written = reports.write("reports/" + date + ".txt", lease.token(), report.getBytes(UTF_8))
                    .toCompletableFuture().join();
            if (written instanceof Stale stale) {
                System.out.println("refused: a newer run (token " + stale.currentToken()
                        + ") has written the report; it stays as it is");
                return 3;
            }
            System.out.println("written reports/" + date + ".txt with token " + lease.token()
                    + " (replacing token " + ((Applied) written).previousToken() + ")");
            return 0;
        } finally {
            issuer.release(lease.leaseId()).toCompletableFuture().join();
        }
    }

    private NightlyReport() {}
}
