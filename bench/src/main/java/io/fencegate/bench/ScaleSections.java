package io.fencegate.bench;

import static io.fencegate.bench.ScaleRun.fmt;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The scale section's text: a table, a chart and the curve's figure, one method a curve. */
final class ScaleSections {
    /** Writes the report as it stands. */
    interface Save {
        void run() throws IOException;
    }

    private final ScaleReport report;
    private final Save save;

    ScaleSections(ScaleReport report, Save save) {
        this.report = report;
        this.save = save;
        report.text("## Scale: how cost grows with the work\n\n"
                + "Each curve grows one thing (distinct locks, waiters on one lock, watchers of one lease, value size) "
                + "and is summed up by one figure from this run: a ratio of the largest size to the smallest (flat is 1.00), "
                + "or the gateway against the same work done without it. ZooKeeper is an in-process `TestingServer` "
                + "(fsyncing); the gateway is a child process with `-Xmx512m`.\n\n");
    }

    void locks(List<DistinctLocks.Curve> curves) throws IOException {
        report.part("locks").text("### Distinct locks\n\nEach size is that many fresh lock names, each leased and released once by "
                + "the issuer as a library (" + DistinctLocks.IN_FLIGHT + " in flight), then left idle; the sizes add up. "
                + "Growth is the backend's over its empty baseline (ZooKeeper's `zk_approximate_data_size`; Redis's "
                + "`used_memory`, which other clients of the shared server also move).\n\n"
                + "| backend | locks | acquire+release/s | p50 ms | p99 ms | backend count | growth |\n"
                + "| --- | --- | --- | --- | --- | --- | --- |\n");
        List<ScaleCharts.Series> series = new ArrayList<>();
        StringBuilder figures = new StringBuilder();
        for (DistinctLocks.Curve c : curves) {
            List<double[]> pts = new ArrayList<>();
            long total = 0;
            for (DistinctLocks.Point p : c.points()) {
                total += p.locks();
                report.text(fmt("| %s | %,d | %.0f | %.2f | %.2f | %,d %s | %s |\n", c.backend(), p.locks(), p.opsPerSec(),
                        p.p50Ms(), p.p99Ms(), p.backendCount(), c.countName(), ProcessMemory.mib(p.backendGrowth())));
                pts.add(new double[] {p.locks(), p.p99Ms()});
            }
            series.add(new ScaleCharts.Series(c.backend() + " p99", pts));
            DistinctLocks.Point first = c.points().get(0);
            DistinctLocks.Point last = c.points().get(c.points().size() - 1);
            double flat = last.p99Ms() / first.p99Ms();
            long perLock = total == 0 ? 0 : last.backendGrowth() / total;
            long left = c.countAfterForget() - c.baselineCount();
            figures.append(fmt("- **%s**: p99 at %,d locks ÷ p99 at %,d = **%.2f×** (target ≤ 1.5×: %s). "
                            + "**%,d bytes per idle lock** (%s). After %.0f s idle (forget after %d s): %,d %s over the "
                            + "baseline of %,d (%s of the %,d locks; target within 10%% of the baseline: %s).\n",
                    c.backend(), last.locks(), first.locks(), flat, flat <= 1.5 ? "yes" : "**no**", perLock, c.bytesName(),
                    c.waitedForgetMs() / 1000.0, DistinctLocks.FORGET_AFTER.toSeconds(), left, c.countName(),
                    c.baselineCount(), total == 0 ? "–" : fmt("%.1f%%", 100.0 * left / total), total,
                    left <= Math.max(10, c.baselineCount() / 10) ? "yes" : "**no**"));
        }
        report.text("\n");
        report.chart("scale-locks.svg", "acquire+release p99 against distinct locks",
                ScaleCharts.lines("Distinct locks: acquire+release p99 (ms)", "distinct locks", "p99 ms", series));
        report.text(figures + "\n");
        save.run();
    }

    void items(List<ItemsPerStore.Point> points) throws IOException {
        report.part("items").text("### Items per store\n\nA fresh store loaded with that many 100-byte items by the database's bulk load "
                + "(COPY on Postgres, LOAD DATA on MariaDB), then guarded writes and fenced reads of random items, "
                + ItemsPerStore.IN_FLIGHT + " in flight, through the store as a library.\n\n"
                + "| store | items | load s | writes/s | write p99 ms | fenced reads/s | read p99 ms |\n"
                + "| --- | --- | --- | --- | --- | --- | --- |\n");
        List<ScaleCharts.Series> series = new ArrayList<>();
        StringBuilder figures = new StringBuilder();
        for (String store : List.of("Postgres", "MariaDB")) {
            List<ItemsPerStore.Point> mine = points.stream().filter(p -> p.store().equals(store)).toList();
            List<double[]> writes = new ArrayList<>();
            List<double[]> reads = new ArrayList<>();
            for (ItemsPerStore.Point p : mine) {
                report.text(fmt("| %s | %,d | %.0f | %.0f | %.2f | %.0f | %.2f |\n", store, p.items(), p.loadSeconds(),
                        p.writeOps(), p.writeP99Ms(), p.readOps(), p.readP99Ms()));
                writes.add(new double[] {p.items(), p.writeP99Ms()});
                reads.add(new double[] {p.items(), p.readP99Ms()});
            }
            series.add(new ScaleCharts.Series(store + " write p99", writes));
            series.add(new ScaleCharts.Series(store + " read p99", reads));
            ItemsPerStore.Point first = mine.get(0);
            ItemsPerStore.Point last = mine.get(mine.size() - 1);
            double w = last.writeP99Ms() / first.writeP99Ms();
            double r = last.readP99Ms() / first.readP99Ms();
            figures.append(fmt("- **%s**: p99 at %,d items ÷ at %,d: guarded write **%.2f×**, fenced read **%.2f×** "
                            + "(target ≤ 1.5×: %s); throughput %.2f× and %.2f×.\n", store, last.items(), first.items(), w, r,
                    w <= 1.5 && r <= 1.5 ? "yes" : "**no**", last.writeOps() / first.writeOps(),
                    last.readOps() / first.readOps()));
        }
        report.text("\n");
        report.chart("scale-items.svg", "write and fenced-read p99 against items per store",
                ScaleCharts.lines("Items per store: p99 (ms)", "items", "p99 ms", series));
        report.text(figures + "\n");
        save.run();
    }

    void issuerHeap(long before, long after, long rss) {
        report.part("locks").text(fmt("The bench JVM (both issuers and the in-process ZooKeeper server) held %s of heap after a full GC "
                + "before the locks and %s after them (RSS %s).\n\n", ProcessMemory.mib(before), ProcessMemory.mib(after),
                ProcessMemory.mib(rss)));
    }

    void waiters(List<LockWaiters.Point> points, int impatient, long leftByImpatient) throws IOException {
        report.part("waiters").text("### Waiters on one lock\n\nEvery waiter loops acquire (waiting) → release on one lock through the "
                + "gateway (ZooKeeper issuer), about 20 grants each; with two gateways the waiters alternate between them. "
                + "Each gateway first runs the loop unmeasured (one waiter 50 rounds, then 16 waiters 5 rounds), and grants count from the moment "
                + "every waiter has been granted once, so every counted grant is made while all of them hold a place in the "
                + "queue: a gateway's first requests take a second or more to reach ZooKeeper, and counting the rounds made "
                + "meanwhile scored a late start as unfairness. "
                + "Hand-off is a release sent → the next grant received. Fairness is the fewest grants of a waiter over "
                + "the most. Watches is the most ZooKeeper held at once while they waited (one per queued waiter: no herd).\n\n"
                + "| waiters | gateways | grants | hand-off p50 ms | hand-off p99 ms | fairness | most watches |\n"
                + "| --- | --- | --- | --- | --- | --- | --- |\n");
        List<ScaleCharts.Series> series = new ArrayList<>();
        for (int gws = 1; gws <= 2; gws++) {
            List<double[]> pts = new ArrayList<>();
            for (LockWaiters.Point p : points) {
                if (p.gateways() == gws) {
                    report.text(fmt("| %d | %d | %,d | %.2f | %.2f | %s | %d |\n", p.waiters(), p.gateways(), p.grants(),
                            p.handoffP50Ms(), p.handoffP99Ms(), Double.isNaN(p.fairness()) ? "–" : fmt("%.2f", p.fairness()),
                            p.maxWatches()));
                    pts.add(new double[] {p.waiters(), p.handoffP99Ms()});
                }
            }
            series.add(new ScaleCharts.Series(gws + " gateway" + (gws > 1 ? "s" : ""), pts));
        }
        report.text("\n");
        report.chart("scale-waiters.svg", "hand-off p99 against waiters",
                ScaleCharts.lines("Waiters on one lock: hand-off p99 (ms)", "waiters", "p99 ms", series));
        double minFair = points.stream().filter(p -> !Double.isNaN(p.fairness())).mapToDouble(LockWaiters.Point::fairness)
                .min().orElse(Double.NaN);
        boolean noHerd = points.stream().allMatch(p -> p.maxWatches() <= p.waiters());
        LockWaiters.Point smallest = points.stream().filter(p -> p.gateways() == 1 && p.waiters() > 1).findFirst().orElse(null);
        LockWaiters.Point largest = points.stream().filter(p -> p.gateways() == 1).reduce((x, y) -> y).orElse(null);
        if (smallest != null && largest != null) {
            report.text(fmt("- Hand-off p99 at %d waiters ÷ at %d (one gateway): **%.2f×**.\n", largest.waiters(),
                    smallest.waiters(), largest.handoffP99Ms() / smallest.handoffP99Ms()));
        }
        report.text(fmt("- Lowest fairness: **%.2f** (target ≥ 0.9 at every size: %s). Watches never more than the waiters: "
                        + "%s. Watches left after each run: %s.\n", minFair, minFair >= 0.9 ? "yes" : "**no**",
                noHerd ? "yes" : "**no**", points.stream().map(p -> Long.toString(p.watchesAfter())).toList()));
        report.text(fmt("- %d waiters that gave up (500 ms wait) under a lock held throughout left **%d** watches on the "
                + "server.\n\n", impatient, leftByImpatient));
        save.run();
    }

    void watchers(List<LeaseWatchers.Point> points) throws IOException {
        double floor = points.get(0).watchers() == 0 ? points.get(0).zkRequestsPerSec() : 0;
        report.part("watchers").text("### Watchers of one lease\n\nSSE watchers (`GET /v1/leases/{id}/events`) of one lease on one gateway "
                + "while its holder renews every 500 ms; then the holder stops and the lease expires. ZooKeeper requests/s "
                + "is what its server received (renewals and pings are the no-watcher floor). Told late is from the "
                + "lease's `expiresAt` to a watcher's `expired` event, read by one selector thread in the bench that "
                + "stamps an event as its bytes arrive (read through the JDK HttpClient instead, 1000 streams add about "
                + "half a second in the client).\n\n"
                + "| watchers | ZooKeeper requests/s | over the floor | told | told late p50 ms | p99 ms | max ms |\n"
                + "| --- | --- | --- | --- | --- | --- | --- |\n");
        List<double[]> pts = new ArrayList<>();
        for (LeaseWatchers.Point p : points) {
            report.text(fmt("| %d | %.0f | %.0f | %d | %.0f | %.0f | %.0f |\n", p.watchers(), p.zkRequestsPerSec(),
                    p.zkRequestsPerSec() - floor, p.told(), p.tellP50Ms(), p.tellP99Ms(), p.tellMaxMs()));
            if (p.watchers() > 0) {
                pts.add(new double[] {p.watchers(), Math.max(0, p.zkRequestsPerSec() - floor)});
            }
        }
        report.text("\n");
        report.chart("scale-watchers.svg", "issuer requests against watchers of one lease",
                ScaleCharts.lines("Watchers of one lease: ZooKeeper requests/s over the floor", "watchers", "requests/s",
                        List.of(new ScaleCharts.Series("one lease", pts))));
        LeaseWatchers.Point small = points.stream().filter(p -> p.watchers() > 0).findFirst().orElse(null);
        LeaseWatchers.Point large = points.get(points.size() - 1);
        if (small != null && large != small) {
            double worstP99 = points.stream().filter(p -> p.watchers() > 0).mapToDouble(LeaseWatchers.Point::tellP99Ms)
                    .max().orElse(Double.NaN);
            report.text(fmt("- Requests over the floor at %d watchers ÷ at %d: **%.2f×** (polled per watcher it would be "
                            + "%d×). Expiry told late, worst p99: **%.0f ms** (target < 200 ms: %s); told to %d of %d at the "
                            + "largest size. Where the time went at %d: the gateway saw the end p99 %.0f ms after the "
                            + "expiry (it reads the lease every 100 ms), and its event was read p99 %.0f ms after that "
                            + "(the gateway's fan-out to every stream and the bench's read).\n\n", large.watchers(), small.watchers(),
                    (large.zkRequestsPerSec() - floor) / Math.max(1e-9, small.zkRequestsPerSec() - floor),
                    large.watchers() / small.watchers(), worstP99, worstP99 < 200 ? "yes" : "**no**", large.told(),
                    large.watchers(), large.watchers(), large.seenP99Ms(), large.readP99Ms()));
        }
        save.run();
    }

    void values(List<ValueSizes.Point> points, ValueSizes.Burst burst, long heapBefore) throws IOException {
        report.part("values").text("### Value size\n\nPUTs of one value size through the gateway, " + ValueSizes.IN_FLIGHT + " in flight, "
                + "against the same bytes written without it: the files store against a crash-atomic file write in the "
                + "bench JVM (temp file, fsync, rename, fsync the directory); the Postgres store against a plain JDBC "
                + "upsert of the value (no guard). The better of two interleaved runs each.\n\n"
                + "| value | store | gateway MiB/s | without the gateway MiB/s | gateway ÷ without |\n"
                + "| --- | --- | --- | --- | --- |\n");
        List<ScaleCharts.Series> series = new ArrayList<>();
        double worst = Double.MAX_VALUE;
        for (String store : List.of("files", "pg")) {
            List<double[]> pts = new ArrayList<>();
            for (ValueSizes.Point p : points) {
                if (p.store().equals(store)) {
                    report.text(fmt("| %s | %s | %.1f | %.1f | %.2f× |\n", size(p.bytes()), store, p.gatewayMiBs(),
                            p.plainMiBs(), p.ratio()));
                    pts.add(new double[] {p.bytes(), p.ratio()});
                    worst = Math.min(worst, p.ratio());
                }
            }
            series.add(new ScaleCharts.Series(store.equals("pg") ? "Postgres" : "files", pts));
        }
        report.text("\n");
        report.chart("scale-values.svg", "gateway over the plain write against value size",
                ScaleCharts.lines("Value size: gateway ÷ the same write without it", "value bytes", "ratio", series));
        report.text(fmt("- Lowest gateway ÷ without: **%.2f×** (target ≥ 0.8 at every size: %s).\n", worst,
                worst >= 0.8 ? "yes" : "**no**"));
        report.text(fmt("- %d PUTs of %s at once to the files store (gateway heap after GC before: %s): %d answered 200, "
                        + "%d failed %s; peak RSS %s; heap after GC afterwards %s; gateway alive afterwards: %s. The gateway "
                        + "streams a body of 1 MiB and more into a files store as it arrives (at most about 1 MiB of each "
                        + "in its heap), so all are received at once; a SQL store takes a value whole, so there such "
                        + "bodies wait for a budget of an eighth of the heap and are taken a few at a time.\n\n",
                burst.requests(), size(16 * 1024 * 1024), ProcessMemory.mib(heapBefore), burst.ok(), burst.failed(),
                burst.failures(), ProcessMemory.mib(burst.peakRssBytes()), ProcessMemory.mib(burst.heapAfterGcBytes()),
                burst.aliveAfter() ? "yes" : "**no**"));
        save.run();
    }

    void gatewayMemory(long heap0, long rss0, long heap1, long rss1, long znodes, long watches) {
        report.part("memory").text(fmt("### Memory\n\nThe gateway (`-Xmx512m`): heap after a full GC %s at start, %s after the waiter and "
                        + "watcher curves; RSS %s and %s. ZooKeeper at the end: %,d znodes, %,d watches.\n\n",
                ProcessMemory.mib(heap0), ProcessMemory.mib(heap1), ProcessMemory.mib(rss0), ProcessMemory.mib(rss1),
                znodes, watches));
    }

    /** Ends each part this run wrote with how and when it was measured. */
    void measured(java.util.Collection<String> curves, String line) {
        for (String part : ScaleReport.PARTS) {
            if (!part.equals("intro") && (curves.contains(part) || part.equals("memory") && curves.stream()
                    .anyMatch(c -> c.equals("waiters") || c.equals("watchers") || c.equals("values")))) {
                report.part(part).text("*" + line + "*\n\n");
            }
        }
    }

    private static String size(int bytes) {
        return bytes >= 1048576 ? bytes / 1048576 + " MiB" : bytes >= 1024 ? bytes / 1024 + " KiB" : bytes + " B";
    }
}
