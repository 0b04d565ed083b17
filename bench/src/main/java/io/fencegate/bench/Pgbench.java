package io.fencegate.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * pgbench (it ships with PostgreSQL) running one SQL script with {@code concurrency} connections:
 * the database's own floor for a statement. Latencies come from pgbench's per-transaction log
 * ({@code -l}: the fourth column is the latency in µs), so they land in the same histogram as the
 * other contenders'.
 */
final class Pgbench implements Contender {
    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");

    private final String name;
    private final Path script;
    private final String schema;
    private final Path logDir;

    Pgbench(String name, Path workDir, String fileName, String sql, String schema) throws IOException {
        this.name = name;
        this.schema = schema;
        this.logDir = workDir.resolve("pgbench-" + fileName);
        Files.createDirectories(logDir);
        this.script = workDir.resolve(fileName + ".sql");
        Files.writeString(script, sql);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Sample measure(int concurrency, Duration warmUp, Duration measure) throws Exception {
        if (warmUp.toMillis() >= 1000) {
            run(concurrency, warmUp, false);
        }
        return run(concurrency, measure, true);
    }

    private Sample run(int concurrency, Duration duration, boolean log) throws Exception {
        // On a loaded machine 64 connections can take the whole window to open, and pgbench then
        // processes no transaction and prints no tps: such a run is retried, twice at most.
        for (int attempt = 1; ; attempt++) {
            try {
                return runOnce(concurrency, duration, log);
            } catch (NoTransactions e) {
                if (attempt == 3) {
                    throw e;
                }
                System.err.println("bench: " + name + " c=" + concurrency + ": no transaction in the window, again");
            }
        }
    }

    private static final class NoTransactions extends IllegalStateException {
        NoTransactions(String message) {
            super(message);
        }
    }

    private Sample runOnce(int concurrency, Duration duration, boolean log) throws Exception {
        // pgbench counts in whole seconds; shorter (smoke) runs take one second.
        long seconds = Math.max(1, Math.round(duration.toMillis() / 1000.0));
        try (Stream<Path> old = Files.list(logDir)) {
            for (Path p : old.toList()) {
                Files.delete(p);
            }
        }
        List<String> command = new ArrayList<>(List.of("pgbench", "-n", "-M", "prepared",
                "-c", Integer.toString(concurrency), "-j", Integer.toString(Math.min(concurrency, 2)),
                "-T", Long.toString(seconds), "-f", script.toString(),
                "-h", "127.0.0.1", "-p", "5432", "-U", "postgres"));
        if (log) {
            command.addAll(List.of("-l", "--log-prefix", logDir.resolve("tx").toString()));
        }
        command.add("test");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PGOPTIONS", "-c search_path=" + schema);
        Process process = pb.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(seconds + 60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(name + ": pgbench failed at c=" + concurrency + ":\n" + output);
        }
        if (!log) {
            return null;
        }
        Matcher tps = TPS.matcher(output);
        if (!tps.find()) {
            throw new NoTransactions(name + ": no tps in pgbench's output:\n" + output);
        }
        Histogram histogram = Sample.newHistogram();
        long[] perClient = new long[concurrency];
        try (Stream<Path> logs = Files.list(logDir)) {
            for (Path file : logs.toList()) {
                for (String line : Files.readAllLines(file)) {
                    String[] f = line.split(" ");
                    histogram.recordValue(Math.max(1, Long.parseLong(f[2])));
                    perClient[Integer.parseInt(f[0]) % concurrency]++;
                }
            }
        }
        double rate = Double.parseDouble(tps.group(1));
        // ops and seconds chosen so that throughput() is pgbench's own tps.
        return new Sample(histogram.getTotalCount(), histogram.getTotalCount() / rate, histogram, perClient);
    }
}
