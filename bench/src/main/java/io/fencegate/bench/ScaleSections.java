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
                + "or the gateway against the same work done without it. ZooKeeper is a `TestingServer` "
                + "(fsyncing) in a JVM of its own; the gateway is a child process with `-Xmx512m`.\n\n");
    }

    /** {@code heapBefore}, {@code heapAfter}: the bench JVM's heap after GC before the curve and once both forgot. */
    void locks(List<DistinctLocks.Curve> curves, long heapBefore, long heapAfter, long rssAfter) throws IOException {
        report.part("locks").text("### Distinct locks\n\nFresh lock names, each leased and released once by the issuer as a "
                + "library, then left idle, until the size is reached (the sizes add up): filled " + DistinctLocks.LOAD_IN_FLIGHT
                + " in flight, and the last " + DistinctLocks.TIMED + " of every size timed apart, " + DistinctLocks.IN_FLIGHT
                + " in flight. Growth is the backend's over its empty baseline (ZooKeeper's `zk_approximate_data_size`; "
                + "Redis's `used_memory`, which other clients of the shared server also move). ZooKeeper runs in a JVM "
                + "of its own (`-Xmx" + ScaleRun.ZOOKEEPER_HEAP + "`), so its heap is the server's alone; the issuer's heap "
                + "is the bench JVM's, which holds nothing else of size. Redis is filled first, then ZooKeeper, then "
                + "both are left idle; a size larger than the idle time's worth of fill is swept while it fills, so "
                + "the locks there at the largest size are counted from the backend (its count over the smallest "
                + "size's count per lock).\n\n"
                + "| backend | locks | fill/s | timed acquire+release/s | p50 ms | p99 ms | backend count | growth |\n"
                + "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        List<ScaleCharts.Series> series = new ArrayList<>();
        StringBuilder figures = new StringBuilder();
        for (DistinctLocks.Curve c : curves) {
            List<double[]> pts = new ArrayList<>();
            for (DistinctLocks.Point p : c.points()) {
                report.text(fmt("| %s | %,d | %s | %.0f | %.2f | %.2f | %,d %s | %s |\n", c.backend(), p.locks(),
                        Double.isNaN(p.loadOpsPerSec()) ? "–" : fmt("%.0f", p.loadOpsPerSec()), p.opsPerSec(),
                        p.p50Ms(), p.p99Ms(), p.backendCount(), c.countName(), ProcessMemory.mib(p.backendGrowth())));
                pts.add(new double[] {p.locks(), p.p99Ms()});
            }
            series.add(new ScaleCharts.Series(c.backend() + " p99", pts));
            DistinctLocks.Point first = c.points().get(0);
            DistinctLocks.Point last = c.points().get(c.points().size() - 1);
            double flat = last.p99Ms() / first.p99Ms();
            double present = c.locksAtFull();
            long left = c.countAfterForget() - c.baselineCount();
            DistinctLocks.Memory e = c.empty();
            DistinctLocks.Memory f = c.full();
            DistinctLocks.Memory g = c.forgotten();
            figures.append(fmt("- **%s**: p99 at %,d locks ÷ p99 at %,d = **%.2f×** (target ≤ 1.5×: %s).\n",
                    c.backend(), last.locks(), first.locks(), flat, flat <= 1.5 ? "yes" : "**no**"));
            figures.append(fmt("  Per idle lock (%,.0f there at %,d): **%s** (%s)%s; the issuer's heap **%s**.\n",
                    present, last.locks(), perLock(f.backendBytes() - e.backendBytes(), present), c.bytesName(),
                    e.backendHeap() < 0 ? "" : fmt(", the server's heap **%s** (after GC: %s empty, %s full; RSS %s, %s)",
                            perLock(f.backendHeap() - e.backendHeap(), present), ProcessMemory.mib(e.backendHeap()),
                            ProcessMemory.mib(f.backendHeap()), ProcessMemory.mib(e.backendRss()), ProcessMemory.mib(f.backendRss())),
                    perLock(f.issuerHeap() - e.issuerHeap(), present)));
            figures.append(fmt("  Idle (forget after %d s), %.0f s after the last lock: %,d %s (baseline %,d, the warm-up's "
                            + "locks in it; within 10%% of it: %s); %s %s over empty%s.\n",
                    c.forgetAfter().toSeconds(), c.waitedForgetMs() / 1000.0, c.countAfterForget(), c.countName(),
                    c.baselineCount(), left <= Math.max(10, c.baselineCount() / 10) ? "yes" : "**no**",
                    c.bytesName(), fmt("%+.1f MiB", (g.backendBytes() - e.backendBytes()) / 1048576.0),
                    e.backendHeap() < 0 ? "" : fmt("; the server's heap after GC %s (empty %s; within 10%%: %s)",
                            ProcessMemory.mib(g.backendHeap()), ProcessMemory.mib(e.backendHeap()),
                            within(g.backendHeap(), e.backendHeap()))));
        }
        figures.append(fmt("- The issuers' JVM: heap after GC %s with both issuers warm and empty, %s once both forgot their locks (within 10%%: %s); "
                + "RSS %s.\n", ProcessMemory.mib(heapBefore), ProcessMemory.mib(heapAfter), within(heapAfter, heapBefore),
                ProcessMemory.mib(rssAfter)));
        report.text("\n");
        report.chart("scale-locks.svg", "acquire+release p99 against distinct locks",
                ScaleCharts.lines("Distinct locks: acquire+release p99 (ms)", "distinct locks", "p99 ms", series));
        report.text(figures + "\n");
        save.run();
    }

    private static String perLock(long bytes, double locks) {
        return locks <= 0 ? "–" : fmt("%,.0f bytes", bytes / locks);
    }

    private static String within(long now, long empty) {
        return now < 0 || empty < 0 ? "–" : now <= empty * 1.1 ? "yes" : "**no**";
    }

    void items(List<ItemsPerStore.Point> points) throws IOException {
        report.part("items").text("### Items per store\n\nA fresh store loaded with that many 100-byte items by the database's bulk load "
                + "(COPY on Postgres, LOAD DATA on MariaDB), then guarded writes and fenced reads of random items, "
                + ItemsPerStore.IN_FLIGHT + " in flight, through the store as a library.\n\n"
                + "Table size is the item table with its indexes as the database reports it after the load "
                + "(`pg_total_relation_size`; `data_length + index_length` after `ANALYZE TABLE`).\n\n"
                + "| store | items | load s | table size | bytes per item | writes/s | write p99 ms | fenced reads/s | read p99 ms |\n"
                + "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        List<ScaleCharts.Series> series = new ArrayList<>();
        StringBuilder figures = new StringBuilder();
        for (String store : List.of("Postgres", "MariaDB")) {
            List<ItemsPerStore.Point> mine = points.stream().filter(p -> p.store().equals(store)).toList();
            List<double[]> writes = new ArrayList<>();
            List<double[]> reads = new ArrayList<>();
            for (ItemsPerStore.Point p : mine) {
                report.text(fmt("| %s | %,d | %.0f | %s | %.0f | %.0f | %.2f | %.0f | %.2f |\n", store, p.items(), p.loadSeconds(),
                        ProcessMemory.mib(p.tableBytes()), p.tableBytes() / (double) p.items(),
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
                            + "(target ≤ 1.5×: %s); throughput %.2f× and %.2f×. **%.0f bytes per item** at %,d (table and indexes).\n",
                    store, last.items(), first.items(), w, r,
                    w <= 1.5 && r <= 1.5 ? "yes" : "**no**", last.writeOps() / first.writeOps(),
                    last.readOps() / first.readOps(), last.tableBytes() / (double) last.items(), last.items()));
        }
        report.text("\n");
        report.chart("scale-items.svg", "write and fenced-read p99 against items per store",
                ScaleCharts.lines("Items per store: p99 (ms)", "items", "p99 ms", series));
        report.text(figures + "\n");
        save.run();
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
                + "Gateway heap is after a full GC with the streams open.\n\n"
                + "| watchers | ZooKeeper requests/s | over the floor | told | told late p50 ms | p99 ms | max ms | gateway heap | gateway RSS |\n"
                + "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        List<double[]> pts = new ArrayList<>();
        for (LeaseWatchers.Point p : points) {
            report.text(fmt("| %d | %.0f | %.0f | %d | %.0f | %.0f | %.0f | %s | %s |\n", p.watchers(), p.zkRequestsPerSec(),
                    p.zkRequestsPerSec() - floor, p.told(), p.tellP50Ms(), p.tellP99Ms(), p.tellMaxMs(),
                    ProcessMemory.mib(p.gatewayHeap()), ProcessMemory.mib(p.gatewayRss())));
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
        LeaseWatchers.Point none = points.get(0);
        if (none.watchers() == 0 && large.watchers() > 0 && none.gatewayHeap() > 0 && large.gatewayHeap() > 0) {
            report.text(fmt("- **%,d bytes of gateway heap per SSE watcher** (heap after GC with %d watchers %s, with none %s).\n\n",
                    (large.gatewayHeap() - none.gatewayHeap()) / large.watchers(), large.watchers(),
                    ProcessMemory.mib(large.gatewayHeap()), ProcessMemory.mib(none.gatewayHeap())));
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

    /** {@code zkHeap}, {@code zkRss}: the ZooKeeper child's at the end; {@code redisUsed}: the shared Redis's used_memory. */
    void gatewayMemory(long heap0, long rss0, long heap1, long rss1, long znodes, long watches, long zkHeap, long zkRss,
                       long redisUsed) {
        report.part("memory").text(fmt("### Memory\n\nThe gateway (`-Xmx512m`): heap after a full GC %s at start, %s after the waiter and "
                        + "watcher curves; RSS %s and %s. ZooKeeper at the end: %,d znodes, %,d watches; its JVM's heap after "
                        + "a full GC %s, RSS %s (after the distinct locks, when they ran). Redis `used_memory` at the end: %s "
                        + "(the shared server, other clients' keys included). Per idle lock, per item and per SSE watcher: "
                        + "in their curves above.\n\n",
                ProcessMemory.mib(heap0), ProcessMemory.mib(heap1), ProcessMemory.mib(rss0), ProcessMemory.mib(rss1),
                znodes, watches, ProcessMemory.mib(zkHeap), ProcessMemory.mib(zkRss), ProcessMemory.mib(redisUsed)));
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
