package io.fencegate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Writes docs/BENCHMARKS.md: the targets with the measured ratio first, then one table and
 * one hand-written SVG chart per section. Every figure is a median over the repetitions with
 * [min–max]; a ratio is taken within each repetition (the contenders ran back to back in it).
 */
record Report(Profile profile, List<Scenario> scenarios, Map<String, String> machine, Map<String, String> versions,
              String loadAtEnd, String command) {

    void write(Path markdown) throws IOException {
        Path dir = markdown.toAbsolutePath().getParent();
        Path charts = dir.resolve("benchmarks");
        Files.createDirectories(charts);
        StringBuilder md = new StringBuilder();
        md.append("# fencegate benchmarks\n\n")
                .append("Written by `").append(command).append("` (profile `").append(profile.name()).append("`: ")
                .append(profile.repetitions()).append(" repetitions of ").append(profile.warmUp().toMillis())
                .append(" ms warm-up + ").append(profile.measure().toMillis()).append(" ms measured per contender, ")
                .append("contenders interleaved within each repetition, after one unrecorded pass of ")
                .append(profile.warmUp().multipliedBy(2).toMillis()).append(" ms of every contender in every ")
                .append("scenario of a group, so no call shape pays the JIT in its first sample). Figures are medians with [min–max] over the ")
                .append("repetitions; a ratio is fencegate's throughput over the other's, taken within each repetition. ")
                .append("Latencies are HdrHistogram percentiles of single operations. **Ratios hold on a noisy ")
                .append("machine; absolute figures do not.**\n\n");
        md.append("Load average ").append(machine.get("load average at start (1/5/15 min)")).append(" at the start, ")
                .append(loadAtEnd).append(" at the end, on ").append(machine.get("CPUs (nproc)"))
                .append(" CPUs: a load above the CPU count means other work shared the machine.\n\n");
        targets(md, Baseline.read(dir.resolve(Baseline.PATH)));
        Map<String, List<Scenario>> sections = new LinkedHashMap<>();
        scenarios.forEach(s -> sections.computeIfAbsent(s.section(), k -> new ArrayList<>()).add(s));
        for (Map.Entry<String, List<Scenario>> section : sections.entrySet()) {
            String file = section.getKey().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "") + ".svg";
            Files.writeString(charts.resolve(file), Charts.throughput(section.getKey(), section.getValue()));
            md.append("## ").append(section.getKey()).append("\n\n")
                    .append("![").append(section.getKey()).append("](benchmarks/").append(file).append(")\n\n");
            for (Scenario s : section.getValue()) {
                table(md, s);
            }
        }
        md.append("## Machine\n\n| fact | value |\n| --- | --- |\n");
        machine.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append("| load average at the end | ").append(loadAtEnd).append(" |\n\n");
        md.append("## Versions\n\n| component | version |\n| --- | --- |\n");
        versions.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        md.append('\n').append(Notes.TEXT);
        md.append(ScaleReport.carried(markdown)); // the scale profile's section stays until that profile rewrites it
        Files.writeString(markdown, md);
    }

    private void targets(StringBuilder md, Baseline before) {
        md.append("## Headline ratios: fencegate against what teams use today\n\n")
                .append("Each row is fencegate's throughput over a peer's (or a floor's), measured in the same run, beside the ratio "
                        + "fencegate aims for. Where a row is short of its goal, docs/PERFORMANCE.md says which guarantee "
                        + "the difference pays for.\n\n");
        if (!before.isEmpty()) {
            md.append("*before*: the same row of [the baseline](").append(Baseline.PATH)
                    .append("), measured on fencegate's first implementation, before it was tuned.\n\n");
        }
        StringBuilder rows = new StringBuilder();
        leaseTargets(rows);
        sqlTargets(rows);
        for (int c : new int[] {1, 16, 64}) {
            target(rows, "Gateway ≥ 1.0× pgbench on the same guarded statement, " + c + " in flight" + (c == 64 ? " (the target)" : ""),
                    1.0, find(GatewayWrites.POSTGRES, "in flight", c), "fencegate gateway", "pgbench, the same");
        }
        for (int c : new int[] {1, 16, 64}) {
            target(rows, "The guarded statement ≥ 0.85× a plain upsert (pgbench both), c=" + c, 0.85,
                    find(GatewayWrites.POSTGRES, "in flight", c), "pgbench, the same", "pgbench, a plain");
        }
        Scenario one = find(GatewayWrites.POSTGRES, "in flight", 1);
        if (one != null) {
            int gw = one.indexOf("fencegate gateway");
            int pg = one.indexOf("pgbench, the same");
            List<Double> overhead = new ArrayList<>();
            for (int r = 0; r < Math.min(one.samples().get(gw).size(), one.samples().get(pg).size()); r++) {
                overhead.add(one.samples().get(gw).get(r).p99Millis() - one.samples().get(pg).get(r).p99Millis());
            }
            Stats s = Stats.of(overhead);
            rows.append("| Gateway p99 overhead at c=1 < 1 ms (gateway p99 − pgbench p99, same statement) | ")
                    .append(s.format("%.2f")).append(" ms | ").append(s.median() < 1.0 ? "yes" : "**no**").append(" |\n");
        }
        target(rows, "FencegateClient ≥ 0.8× a pooled async client (Vert.x WebClient), 16 in flight", 0.8,
                find(GatewayWrites.CLIENT, "in flight", 16), "FencegateClient", "Vert.x WebClient");
        multiTargets(rows);
        readWriteTargets(rows);
        target(rows, "Python client ≥ 0.8× a plain http.client loop, same route, 16 in flight", 0.8,
                find(ClientLanguages.SECTION, ClientLanguages.PYTHON, 16), "fencegate client (Python)", "http.client");
        target(rows, "Node client ≥ 0.8× a plain fetch loop, same route, 16 in flight", 0.8,
                find(ClientLanguages.SECTION, ClientLanguages.NODE, 16), "@fencegate/client (Node)", "fetch");
        for (int c : new int[] {1, 16, 64}) {
            target(rows, "(no target) gateway on MariaDB ÷ the JDBC store as a library, " + c + " in flight", Double.NaN,
                    find(GatewayWrites.MARIADB, "in flight", c), "fencegate gateway", "JdbcGuardedStore");
        }
        for (int c : new int[] {1, 16}) {
            target(rows, "ShedLock: FencedLockProvider (Redis issuer) ≥ 1.0× ShedLock's RedisLockProvider, lock + unlock, c=" + c, 1.0,
                    find(ShedLockPairs.SECTION, ShedLockPairs.ON_REDIS, c), "fencegate FencedLockProvider", "ShedLock RedisLockProvider");
            target(rows, "ShedLock: FencedLockProvider (SQL issuer) ≥ 1.0× ShedLock's JdbcTemplateLockProvider on PostgreSQL, c=" + c, 1.0,
                    find(ShedLockPairs.SECTION, ShedLockPairs.ON_POSTGRES, c), "fencegate FencedLockProvider", "ShedLock JdbcTemplateLockProvider");
        }
        md.append(before.isEmpty() ? "| target | measured (median [min–max]) | met? |\n| --- | --- | --- |\n"
                : "| target | before | now (median [min–max]) | goal met? |\n| --- | --- | --- | --- |\n");
        rows.toString().lines().forEach(row -> md.append(before.withBefore(row)).append('\n'));
        md.append('\n');
    }

    /** The ZooKeeper and Redis issuers against their peers, each in both call shapes (peer in the same shape). */
    private void leaseTargets(StringBuilder rows) {
        for (int c : new int[] {1, 16}) {
            for (String shape : List.of(LeaseShapes.BLOCKING, LeaseShapes.ASYNC)) {
                String how = shape.equals(LeaseShapes.BLOCKING) ? "blocking" : "async";
                Scenario s = find(ZooKeeperLeases.SECTION, LeaseShapes.title(shape), c);
                target(rows, "ZooKeeper issuer (zxid, " + how + ") ≥ 0.9× raw create+delete, uncontended c=" + c, 0.9,
                        s, ZooKeeperLeases.ZXID, ZooKeeperLeases.RAW);
                target(rows, "ZooKeeper issuer (zxid, " + how + ") ≥ 1.0× Curator InterProcessMutex, uncontended c=" + c, 1.0,
                        s, ZooKeeperLeases.ZXID, ZooKeeperLeases.MUTEX);
                target(rows, "(no target) ZooKeeper issuer (zxid, " + how + ") ÷ Hazelcast FencedLock (3 CP members), uncontended c="
                        + c, Double.NaN, s, ZooKeeperLeases.ZXID, ZooKeeperLeases.HAZELCAST);
            }
        }
        for (int c : new int[] {1, 16}) {
            for (String shape : List.of(LeaseShapes.BLOCKING, LeaseShapes.ASYNC)) {
                String how = shape.equals(LeaseShapes.BLOCKING) ? "blocking" : "async";
                Scenario s = find(RedisLeases.SECTION, LeaseShapes.title(shape), c);
                String target = c == 16 ? " (the target)" : "";
                target(rows, "Redis issuer (" + how + ") ≥ 0.8× the raw Lua floor, uncontended c=" + c + target, 0.8,
                        s, RedisLeases.FENCEGATE, RedisLeases.FLOOR);
                target(rows, "Redis issuer (" + how + ") ≥ 1.5× Redisson RFencedLock, uncontended c=" + c + target, 1.5,
                        s, RedisLeases.FENCEGATE, RedisLeases.FENCED_LOCK);
            }
        }
    }

    /** A two-item transfer through the gateway against pgbench; MultiLock of 2 against two acquires, per issuer. */
    private void multiTargets(StringBuilder rows) {
        Scenario transfer = find(GatewayTransfers.SECTION, "in flight", 16);
        target(rows, "Two-item transfer: gateway (one transaction request) ≥ 0.8× pgbench, the same two guarded statements"
                + " in one transaction, 16 in flight", 0.8, transfer, GatewayTransfers.GATEWAY, GatewayTransfers.SAME_STATEMENTS);
        target(rows, "(no target) Two-item transfer: gateway ÷ pgbench running the gateway's own statements, 16 in flight",
                Double.NaN, transfer, GatewayTransfers.GATEWAY, GatewayTransfers.GATEWAY_STATEMENTS);
        for (String issuer : List.of("ZooKeeper (zxid)", "Redis", "SQL on PostgreSQL", "SQL on MariaDB")) {
            for (int c : new int[] {1, 16}) {
                target(rows, "MultiLock of 2 ≥ 1.0× two single acquires in sequence, " + issuer + ", c=" + c, 1.0,
                        find(MultiLockPairs.SECTION, MultiLockPairs.title(issuer), c), MultiLockPairs.GROUP, MultiLockPairs.SINGLES);
            }
        }
    }

    /** Read leases and permits against the recipes on the same backend; the SQL issuer's beside its own write lease. */
    private void readWriteTargets(StringBuilder rows) {
        String rw = ReadWriteLeases.SECTION;
        for (int c : new int[] {1, 16}) {
            target(rows, "Read lease: ZooKeeper issuer ≥ 1.0× Curator InterProcessReadWriteLock's read lock, one lock, c=" + c, 1.0,
                    find(rw, ReadWriteLeases.READ + ", ZooKeeper", c), ReadWriteLeases.ZK_READ, ReadWriteLeases.CURATOR_READ);
            target(rows, "Read lease: Redis issuer ≥ 1.0× Redisson RReadWriteLock's read lock, one lock, c=" + c, 1.0,
                    find(rw, ReadWriteLeases.READ + ", Redis", c), ReadWriteLeases.REDIS_READ, ReadWriteLeases.REDISSON_READ);
            target(rows, "Permit: ZooKeeper issuer ≥ 1.0× Curator InterProcessSemaphoreV2, c=" + c, 1.0,
                    find(rw, ReadWriteLeases.PERMIT + ", ZooKeeper", c), ReadWriteLeases.ZK_PERMIT, ReadWriteLeases.CURATOR_SEMAPHORE);
            target(rows, "Permit: Redis issuer ≥ 1.0× Redisson RSemaphore, c=" + c, 1.0,
                    find(rw, ReadWriteLeases.PERMIT + ", Redis", c), ReadWriteLeases.REDIS_PERMIT, ReadWriteLeases.REDISSON_SEMAPHORE);
            target(rows, "(no target) SQL issuer on PostgreSQL: read lease ÷ its write lease, c=" + c, Double.NaN,
                    find(rw, ReadWriteLeases.READ + ", SQL", c), ReadWriteLeases.SQL_READ, ReadWriteLeases.SQL_WRITE);
            target(rows, "(no target) SQL issuer on PostgreSQL: permit ÷ its write lease, c=" + c, Double.NaN,
                    find(rw, ReadWriteLeases.PERMIT + ", SQL", c), ReadWriteLeases.SQL_PERMIT, ReadWriteLeases.SQL_WRITE);
        }
    }

    /** The SQL issuer, both call shapes, on each database; and its hand-off with and without NOTIFY. */
    private void sqlTargets(StringBuilder rows) {
        for (String section : List.of(SqlLeases.POSTGRES, SqlLeases.MARIADB)) {
            String on = section.equals(SqlLeases.POSTGRES) ? "PostgreSQL" : "MariaDB";
            for (int c : new int[] {1, 16}) {
                Scenario s = find(section, SqlLeases.UNCONTENDED, c);
                for (String shape : List.of(SqlLeases.BLOCKING, SqlLeases.ASYNC)) {
                    String how = shape.equals(SqlLeases.BLOCKING) ? "blocking" : "async";
                    target(rows, "SQL issuer (" + how + ") ≥ 1.5× ShedLock JDBC, " + on + ", c=" + c, 1.5, s, shape, SqlLeases.SHEDLOCK);
                    target(rows, "SQL issuer (" + how + ") ≥ 1.5× Spring Integration JdbcLockRegistry, " + on + ", c=" + c, 1.5, s,
                            shape, SqlLeases.REGISTRY);
                    target(rows, "SQL issuer (" + how + ") ≥ 0.8× two bare statements, " + on + ", c=" + c, 0.8, s, shape,
                            SqlLeases.FLOOR);
                }
                target(rows, "(no target) SQL issuer, blocking callers running their own calls ÷ each call handed to the issuer's threads, "
                        + on + ", c=" + c, Double.NaN, s, SqlLeases.BLOCKING, SqlLeases.HANDED_OFF);
                target(rows, "(no target) SQL issuer on the application's pool (blocking) ÷ ShedLock JDBC, " + on + ", c=" + c,
                        Double.NaN, s, SqlLeases.APP_POOL, SqlLeases.SHEDLOCK);
            }
        }
        Scenario handOff = find(SqlLeases.POSTGRES, SqlLeases.HAND_OFF, 1);
        if (handOff != null) {
            for (String how : List.of(SqlLeases.NOTIFY, SqlLeases.POLLING)) {
                Stats p50 = stat(handOff.samples().get(handOff.indexOf(how)), Sample::p50Millis);
                boolean notify = how.equals(SqlLeases.NOTIFY);
                rows.append("| ").append(notify ? "SQL issuer hand-off p50 < 20 ms with LISTEN/NOTIFY, PostgreSQL"
                                : "(no target) SQL issuer hand-off p50 with polling only, PostgreSQL")
                        .append(" | ").append(p50.format("%.1f")).append(" ms | ")
                        .append(!notify ? "–" : p50.median() < 20 ? "yes" : "**no**").append(" |\n");
            }
        }
    }

    private void target(StringBuilder md, String label, double goal, Scenario s, String mine, String theirs) {
        if (s == null) {
            return;
        }
        Stats ratio = Stats.of(s.ratios(s.indexOf(mine), s.indexOf(theirs)));
        String met = Double.isNaN(goal) ? "–" : ratio.median() >= goal ? "yes" : "**no**";
        md.append("| ").append(label).append(" | ").append(ratio.format("%.2f×")).append(" | ").append(met).append(" |\n");
    }

    private Scenario find(String section, String titlePrefix, int concurrency) {
        return scenarios.stream().filter(s -> s.section().equals(section) && s.title().startsWith(titlePrefix)
                && s.concurrency() == concurrency).findFirst().orElse(null);
    }

    private static void table(StringBuilder md, Scenario s) {
        boolean contended = s.title().startsWith("contended");
        md.append("**").append(s.title()).append(", c=").append(s.concurrency()).append("** (").append(s.unit())
                .append(")\n\n| contender | ops/s | p50 ms | p99 ms | fencegate ÷ this |")
                .append(contended ? " fairness (min/max ops of a worker) |" : "")
                .append("\n| --- | --- | --- | --- | --- |").append(contended ? " --- |" : "").append('\n');
        for (int i = 0; i < s.contenders().size(); i++) {
            List<Sample> runs = s.samples().get(i);
            md.append("| ").append(s.contenders().get(i).name())
                    .append(" | ").append(stat(runs, Sample::throughput).format("%.0f"))
                    .append(" | ").append(stat(runs, Sample::p50Millis).format("%.2f"))
                    .append(" | ").append(stat(runs, Sample::p99Millis).format("%.2f"))
                    .append(" | ").append(i == 0 ? "1.00" : Stats.of(s.ratios(i)).format("%.2f×"));
            if (contended) {
                md.append(" | ").append(stat(runs, Sample::fairness).format("%.2f"));
            }
            md.append(" |\n");
        }
        md.append('\n');
    }

    static Stats stat(List<Sample> runs, ToDoubleFunction<Sample> f) {
        return Stats.of(runs.stream().map(r -> f.applyAsDouble(r)).toList());
    }
}
