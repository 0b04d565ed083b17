package io.fencegate.check;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fencegate check}: runs a workload against a live deployment (or reads a saved history with
 * {@code --history}), checks the history and exits 0 (no violation), 1 (violations) or 2 (the run
 * proved nothing, or too little).
 */
@Command(name = "fencegate check", mixinStandardHelpOptions = true,
        description = "Runs a workload against live gateways, records every operation and checks the history.")
public final class CheckCommand implements Callable<Integer> {

    @Option(names = "--url", split = ",", description = "gateway base URLs, comma-separated (not with --history)")
    List<URI> urls;

    @Option(names = "--workload", description = "counter, lock-set, mutex, bank, rw or semaphore (with --history: default, the one the file names)")
    String workload;

    @Option(names = "--history", description = "judge this saved history.json again instead of running clients")
    Path historyFile;

    @Option(names = "--seconds", defaultValue = "60", description = "how long the clients run (default 60)")
    int seconds;

    @Option(names = "--clients", defaultValue = "16", description = "client threads (default 16)")
    int clients;

    @Option(names = "--first-client", defaultValue = "0", description = "number of the first client (when several processes share a run)")
    int firstClient;

    @Option(names = "--store", defaultValue = "main", description = "the store the items live in (default main)")
    String store;

    @Option(names = "--key-prefix", description = "prefix of every key (default: check-<random>, fresh items)")
    String keyPrefix;

    @Option(names = "--keys", defaultValue = "4", description = "items (locks) the clients contend on (default 4)")
    int keys;

    @Option(names = "--accounts", description = "bank: its accounts, 2 to 8 (default 5)")
    Integer accounts;

    @Option(names = "--permits", description = "semaphore: its permits, 1 to 64 (default 3)")
    Integer permits;

    @Option(names = "--ttl-ms", defaultValue = "1000", description = "lease ttl (default 1000)")
    long ttlMs;

    @Option(names = "--think-ms", defaultValue = "20", description = "up to this long between read and write (default 20)")
    long thinkMs;

    @Option(names = "--pause-chance", defaultValue = "0.05", description = "how often a client pauses past its ttl (default 0.05)")
    double pauseChance;

    @Option(names = "--control", description = "none (default), plain-reads, bypass-guard or over-grant (semaphore): a broken client that must show"
            + " violations (with --history: default, the one the file names)")
    String control;

    @Option(names = "--bypass-jdbc-url", description = "bypass-guard: the JDBC URL of the store's database")
    String bypassUrl;

    @Option(names = "--bypass-user", defaultValue = "", description = "bypass-guard: its user")
    String bypassUser;

    @Option(names = "--bypass-password", defaultValue = "", description = "bypass-guard: its password")
    String bypassPassword;

    @Option(names = "--api-key", description = "an API key, if the gateways require one")
    String apiKey;

    @Option(names = "--out", defaultValue = "check-results", description = "where history.json, summary.json and timeline.html go (with --history: summary and timeline)")
    Path out;

    @Option(names = "--record-only", description = "write the history and exit 0 without judging it (the nemesis harness merges processes' histories)")
    boolean recordOnly;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    public static int execute(String... args) {
        return new CommandLine(new CheckCommand())
                .setParameterExceptionHandler((e, a) -> {
                    System.err.println("fencegate check: " + e.getMessage());
                    return Report.PROVED_NOTHING;
                })
                .execute(args);
    }

    RunOptions options() {
        if (urls == null || urls.isEmpty()) {
            throw new IllegalArgumentException("--url: at least one gateway URL (or --history FILE to judge a saved run)");
        }
        if (workload == null) {
            throw new IllegalArgumentException("--workload: counter, lock-set, mutex, bank, rw or semaphore");
        }
        Workload w = Workload.parse(workload);
        if (accounts != null && w != Workload.BANK) {
            throw new IllegalArgumentException("--accounts: only for the bank workload (the others contend on --keys)");
        }
        if (permits != null && w != Workload.SEMAPHORE) {
            throw new IllegalArgumentException("--permits: only for the semaphore workload (the others contend on --keys)");
        }
        List<String> bypass = bypassUrl == null ? List.of() : new ArrayList<>(Arrays.asList(bypassUrl, bypassUser, bypassPassword));
        return new RunOptions(urls, w, seconds, clients, firstClient, store,
                keyPrefix != null ? keyPrefix : "check-" + UUID.randomUUID().toString().substring(0, 8),
                w == Workload.BANK ? (accounts == null ? 5 : accounts)
                        : w == Workload.SEMAPHORE ? (permits == null ? SemaphoreWorkload.DEFAULT_PERMITS : permits) : keys, ttlMs,
                thinkMs, pauseChance, Control.parse(control == null ? "none" : control), bypass, apiKey).validate();
    }

    @Override
    public Integer call() throws Exception {
        if (historyFile != null) {
            return judgeAgain();
        }
        RunOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException e) {
            System.err.println("fencegate check: " + e.getMessage());
            return Report.PROVED_NOTHING;
        }
        System.err.printf("fencegate check: %s, %d clients on %s for %d s (keys %s/*, control %s)%n", options.workload().label(),
                options.clients(), options.gateways(), options.seconds(), options.keyPrefix(), options.control().label());
        History history = Runner.run(options);
        if (recordOnly) {
            history.write(out);
            return 0;
        }
        Runner.finalReads(history, options.gateways(), apiKey, store);
        Report.Summary summary = judge(history, options.workload(), options.control());
        Report.write(out, history, summary);
        System.out.println("history, summary and timeline in " + out.toAbsolutePath());
        return summary.exitCode();
    }

    /**
     * {@code --history}: the saved operations and faults judged as a run's are, the same tables
     * printed; summary.json and timeline.html go to {@code --out} (the history stays where it is).
     */
    private int judgeAgain() throws Exception {
        History saved = new History();
        Workload w;
        Control c;
        try {
            if (urls != null) {
                throw new IllegalArgumentException("--url: not with --history, which judges a saved run without calling anyone");
            }
            saved.addAll(History.read(historyFile));
            String named = workload != null ? workload : saved.workload();
            if (named == null) {
                throw new IllegalArgumentException("--workload: " + historyFile + " does not name its workload; give counter, lock-set, mutex, bank, rw or semaphore");
            }
            w = Workload.parse(named);
            c = Control.parse(control != null ? control : saved.control() != null ? saved.control() : "none");
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("fencegate check: " + e.getMessage());
            return Report.PROVED_NOTHING;
        }
        saved.describe(w.label(), c.label());
        Report.Summary summary = judge(saved, w, c);
        Report.writeJudgement(out, saved, summary);
        System.out.println("summary and timeline in " + out.toAbsolutePath());
        return summary.exitCode();
    }

    private static Report.Summary judge(History history, Workload w, Control c) {
        Verdict verdict = Checker.check(w, history.ops(), history.faults());
        Report.Summary summary = Report.summarize(verdict, c, history.ops(), history.faults());
        System.out.print(Report.tables(summary));
        return summary;
    }
}
