package io.fencegate.demo;

import io.fencegate.client.FencegateClient;
import io.fencegate.examples.support.Teardown;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./fencegate demo}: buyer processes sell the last units of a product under one lock, and
 * one of them is frozen with SIGSTOP past its lease; the same workload runs four ways (see
 * {@link Mode}). Exits 0 when modes 3 and 4 are exact and modes 1 and 2 showed the anomaly.
 */
@Command(name = "fencegate demo", mixinStandardHelpOptions = true,
        description = "Sell the last units four ways while a buyer is paused past its lease; print the table, write the chart.")
public final class DemoMain implements Callable<Integer> {
    enum Store { h2, postgres, mariadb }

    enum Issuer { zookeeper, redis, sql }

    private static final int ATTEMPTS = 3;
    /** Runs in which buyer 0 never got the lock (nothing was paused) do not count as attempts, up to this many. */
    private static final int UNPAUSED_RUNS = 6;

    @Option(names = "--store", defaultValue = "h2",
            description = "Where the stock lives: h2 (embedded, default), postgres or mariadb (see --jdbc-url).")
    Store store;

    @Option(names = "--jdbc-url",
            description = "The database for postgres or mariadb; the demo creates and drops its own schemas (Postgres) or"
                    + " databases (MariaDB) there. Default: " + Databases.POSTGRES_DEFAULT + " or " + Databases.MARIADB_DEFAULT
                    + ". Implies --store from the URL.")
    String jdbcUrl;

    @Option(names = "--db-user", description = "User for --jdbc-url (default: postgres or root).")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "", description = "Password for --jdbc-url (default: none).")
    String dbPassword;

    @Option(names = "--issuer", defaultValue = "zookeeper",
            description = "The gateway's issuer: zookeeper (default), redis (127.0.0.1:6379; mode 1 then locks with SET NX PX)"
                    + " or sql (leases in the store's own database: no ZooKeeper, no Redis).")
    Issuer issuer;

    @Option(names = "--buyers", defaultValue = "3", description = "Buyer processes, 2 to 6 (default 3).")
    int buyers;

    @Option(names = "--stock", defaultValue = "5", description = "Units in stock, 1 to 50 (default 5).")
    int stock;

    @Option(names = "--pause-ms", defaultValue = "" + ModeRun.TTL_MS,
            description = "Least time the paused buyer stays stopped; lengthened if modes 1-2 show no anomaly (default: the ttl, 800).")
    long pauseMs;

    @Option(names = "--chart", defaultValue = "${sys:java.io.tmpdir}/fencegate-demo/demo.svg",
            description = "Where to write the chart (SVG); default: fencegate-demo/demo.svg in the system temp folder.")
    Path chart;

    @Option(names = "--results", description = "Also write the numbers as TSV here.")
    Path results;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DemoMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (buyers < 2 || buyers > 6) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--buyers: expected 2 to 6, got " + buyers);
        }
        if (stock < 1 || stock > 50) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--stock: expected 1 to 50, got " + stock);
        }
        if (pauseMs < 0 || pauseMs > 10_000) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--pause-ms: expected 0 to 10000, got " + pauseMs);
        }
        if (jdbcUrl != null) {
            Store named = jdbcUrl.startsWith("jdbc:postgresql:") ? Store.postgres
                    : jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:") ? Store.mariadb : null;
            if (named == null) {
                throw new CommandLine.ParameterException(new CommandLine(this),
                        "--jdbc-url: expected jdbc:postgresql://... or jdbc:mariadb://..., got '" + jdbcUrl + "'");
            }
            if (store != Store.h2 && store != named) {
                throw new CommandLine.ParameterException(new CommandLine(this),
                        "--jdbc-url: a " + named + " URL, but --store is " + store);
            }
            store = named;
        }
        return Teardown.around("demo", this::run);
    }

    private int run(Teardown teardown) throws Exception {
        long started = System.nanoTime();
        Path work = teardown.temporaryFolder("fencegate-demo");
        String redisPrefix = "fg-demo-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + ":";
        if (issuer == Issuer.redis) {
            teardown.add(() -> DemoGateway.deleteRedisKeys(redisPrefix));
        }
        Databases db = teardown.add(Databases.open(store.name(), work.resolve("gateway-h2").toAbsolutePath().toString(),
                jdbcUrl, dbUser, dbPassword));
        DemoGateway gateway = teardown.add(DemoGateway.start(issuer.name(), db, work, redisPrefix));
        String lock1 = issuer == Issuer.redis ? "Redis SET NX PX (" + DemoGateway.REDIS_URI + ")" : "a gateway lease, token ignored";
        System.out.printf("fencegate demo: %d buyer processes sell the last %d units under one lock (ttl %d ms, payment %d ms).%n",
                buyers, stock, ModeRun.TTL_MS, ModeRun.PAYMENT_MS);
        System.out.printf("Buyer 0 is frozen with SIGSTOP in its payment step, past its lease, then SIGCONT.%n");
        System.out.printf("store: %s · issuer: %s · mode 1 lock: %s%n%n", db.kind, gateway.issuerDescription(), lock1);
        BlockingQueue<BuyerProcess.Event> events = new LinkedBlockingQueue<>();
        String redisLock = issuer == Issuer.redis ? DemoGateway.REDIS_URI + "#" + redisPrefix + "lock:" : "-";
        List<BuyerProcess> processes = new ArrayList<>();
        for (int i = 0; i < buyers; i++) {
            processes.add(teardown.add(BuyerProcess.start(i, gateway.uri().toString(), db, redisLock, events)));
        }
        awaitReady(events, processes);
        FencegateClient client = FencegateClient.builder(gateway.uri()).timeout(Duration.ofSeconds(10)).build();
        ModeRun runner = new ModeRun(processes, events, db, client);
        List<ModeResult> all = new ArrayList<>();
        boolean asExpected = true;
        for (Mode mode : Mode.values()) {
            ModeResult result = runMode(runner, mode);
            all.add(result);
            asExpected &= mode.expectsAnomaly() ? result.anomaly() : result.exact();
        }
        System.out.println();
        Report.table(all, System.out);
        String subtitle = buyers + " buyer processes, one frozen with SIGSTOP; store " + store + ", issuer " + issuer
                + ", ttl " + ModeRun.TTL_MS + " ms";
        Report.svg(all, subtitle, chart);
        if (results != null) {
            Report.tsv(all, results);
        }
        System.out.printf("%nchart: %s%s · %.1f s%n", chart.toAbsolutePath().normalize(),
                results == null ? "" : " · numbers: " + results.toAbsolutePath().normalize(),
                (System.nanoTime() - started) / 1e9);
        if (!asExpected) {
            System.out.println("NOT AS EXPECTED: modes 3 and 4 must be exact, modes 1 and 2 must show the anomaly.");
            return 1;
        }
        return 0;
    }

    /**
     * Runs a mode; a control mode (1, 2) that shows no anomaly runs again, and says so: with a longer
     * pause, or with the same one if buyer 0 was never paused.
     */
    private ModeResult runMode(ModeRun runner, Mode mode) throws Exception {
        long pause = pauseMs;
        int unpaused = 0;
        for (int attempt = 1, run = 1; ; attempt++, run++) {
            ModeResult r = runner.run(mode, stock, pause, run);
            System.out.printf("mode %s, %s (%s): %d sold of %d, %d left, %d stale refused, buyer 0 paused %d ms: %s%n",
                    mode.number, mode.title, mode.how, r.sold(), r.stock(), r.stockLeft(), r.staleRefused(), r.pausedMs(),
                    Report.verdict(r));
            boolean neverHeld = r.pausedMs() == 0 && unpaused < UNPAUSED_RUNS;
            if (!mode.expectsAnomaly() || r.anomaly() || (attempt >= ATTEMPTS && !neverHeld)) {
                if (mode.expectsAnomaly() && !r.anomaly()) {
                    System.out.printf("  no anomaly in %d runs of mode %s: reported as is.%n", run, mode.number);
                }
                return r;
            }
            if (r.pausedMs() == 0) {
                // Nothing was paused (the others sold out before buyer 0 got the lock): a longer pause
                // would change nothing, the same one gets another chance, and such a run is no attempt
                // (on a busy machine buyer 0 can miss the lock several runs in a row).
                System.out.printf("  buyer 0 never held the lock this run: running mode %s again%n", mode.number);
                if (neverHeld) {
                    unpaused++;
                    attempt--;
                }
                continue;
            }
            pause = Math.min(Math.max(pause * 2, ModeRun.TTL_MS), 10_000);
            System.out.printf("  no anomaly this run (the pause missed the window): running mode %s again, pause at least %d ms%n",
                    mode.number, pause);
        }
    }

    private static void awaitReady(BlockingQueue<BuyerProcess.Event> events, List<BuyerProcess> processes) throws Exception {
        Set<Integer> ready = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ready.size() < processes.size()) {
            BuyerProcess.Event event = events.poll(100, TimeUnit.MILLISECONDS);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("buyers not ready after 60 s");
            }
            if (event == null) {
                continue;
            }
            if (event.kind().equals("EXIT") || event.kind().equals("ERROR")) {
                throw new IllegalStateException("buyer " + event.actor() + " failed to start: "
                        + processes.get(event.actor()).otherOutput());
            }
            if (event.kind().equals("READY")) {
                ready.add(event.actor());
            }
        }
    }
}
