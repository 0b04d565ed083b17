package io.fencegate.check;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run shows: a table per key and per fault kind (with the share of unknown operations in the
 * fault windows and outside them), the exit code, and the files: history.json, summary.json and
 * timeline.html.
 */
public final class Report {
    public static final int VALID = 0;
    public static final int VIOLATIONS = 1;
    public static final int PROVED_NOTHING = 2;
    /**
     * Unknown operations are never judged, so they are places a violation could hide. Faults make
     * some; outside fault windows more than this share means the run looked at too little.
     */
    public static final double MAX_UNKNOWN_OUTSIDE_FAULTS = 0.05;
    /** The row of the operations that overlapped no fault. */
    public static final String OUTSIDE_FAULTS = "(no fault)";

    /** One row of a table: the counted operations (writes, or grants for the mutex) by outcome. */
    public record Row(String name, long ops, long ok, long fail, long unknown, long violations, double seconds, long injected) {
        public double unknownShare() {
            return ops == 0 ? 0 : (double) unknown / ops;
        }
    }

    /** One fault window and the counted operations that overlapped it. */
    public record Window(String kind, String scope, long startUs, long endUs, long ops, long ok, long fail, long unknown) {}

    /**
     * @param counted      what "ops" and "fail" count, in words
     * @param releases     release calls, and how many were answered 410 gone (the lease had ended first)
     * @param windows      every fault window with its operations
     */
    public record Summary(String workload, String control, int exitCode, String verdict, long ops, long ok, long fail,
            long unknown, int violationCount, int excusedOverlaps, List<Row> keys, List<Row> faults,
            List<Violation> violations, String counted, long releases, long releasesGone, List<Window> windows,
            List<String> undecided) {

        /** Summaries written before these fields existed read back with them empty. */
        public Summary {
            counted = counted == null ? "" : counted;
            windows = windows == null ? List.of() : windows;
            undecided = undecided == null ? List.of() : undecided;
        }

        /** A summary without what was left undecided (as summaries were before they had it). */
        public Summary(String workload, String control, int exitCode, String verdict, long ops, long ok, long fail,
                long unknown, int violationCount, int excusedOverlaps, List<Row> keys, List<Row> faults,
                List<Violation> violations, String counted, long releases, long releasesGone, List<Window> windows) {
            this(workload, control, exitCode, verdict, ops, ok, fail, unknown, violationCount, excusedOverlaps, keys, faults,
                    violations, counted, releases, releasesGone, windows, List.of());
        }

        /** A summary without the release counts and windows (as summaries were before they had them). */
        public Summary(String workload, String control, int exitCode, String verdict, long ops, long ok, long fail,
                long unknown, int violationCount, int excusedOverlaps, List<Row> keys, List<Row> faults, List<Violation> violations) {
            this(workload, control, exitCode, verdict, ops, ok, fail, unknown, violationCount, excusedOverlaps, keys, faults,
                    violations, "", 0, 0, List.of(), List.of());
        }
    }

    private Report() {}

    public static Summary summarize(Verdict verdict, Control control, List<Op> ops, List<Fault> faults) {
        Workload w = verdict.workload();
        List<Op> counted = ops.stream().filter(w::counts).toList();
        Map<String, long[]> byKey = new TreeMap<>();
        for (Op op : counted) {
            tally(byKey.computeIfAbsent(op.key(), k -> new long[5]), op);
        }
        for (Violation v : verdict.violations()) {
            byKey.computeIfAbsent(v.key(), k -> new long[5])[4]++;
        }
        List<Row> keys = new ArrayList<>();
        byKey.forEach((k, c) -> keys.add(new Row(k, c[0], c[1], c[2], c[3], c[4], 0, 0)));

        List<Window> windows = new ArrayList<>();
        for (Fault f : faults) {
            long[] c = new long[5];
            counted.stream().filter(o -> f.overlaps(o.invokeUs(), o.completeUs())).forEach(o -> tally(c, o));
            windows.add(new Window(f.kind(), f.scope(), f.startUs(), f.endUs(), c[0], c[1], c[2], c[3]));
        }
        Map<String, List<Fault>> kinds = new TreeMap<>();
        faults.forEach(f -> kinds.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(f));
        List<Row> faultRows = new ArrayList<>();
        kinds.forEach((kind, list) -> {
            long[] c = new long[5];
            counted.stream().filter(o -> list.stream().anyMatch(f -> f.overlaps(o.invokeUs(), o.completeUs()))).forEach(o -> tally(c, o));
            c[4] = verdict.violations().stream().filter(v -> list.stream().anyMatch(f -> f.overlaps(v.atUs() - 5_000_000, v.atUs()))).count();
            double seconds = list.stream().mapToLong(f -> f.endUs() - f.startUs()).sum() / 1e6;
            faultRows.add(new Row(kind, c[0], c[1], c[2], c[3], c[4], seconds, list.size()));
        });
        long[] none = new long[5];
        counted.stream().filter(o -> faults.stream().noneMatch(f -> f.overlaps(o.invokeUs(), o.completeUs()))).forEach(o -> tally(none, o));
        Row outside = new Row(OUTSIDE_FAULTS, none[0], none[1], none[2], none[3], 0, 0, 0);
        faultRows.add(outside);

        long[] all = new long[5];
        counted.forEach(o -> tally(all, o));
        List<Op> releases = ops.stream().filter(o -> o.is(Op.RELEASE)).toList();
        long gone = releases.stream().filter(o -> o.outcome() == Outcome.FAIL).count();
        int exit;
        String words;
        if (all[1] == 0) {
            exit = PROVED_NOTHING;
            words = "PROVED NOTHING: no operation was acknowledged";
        } else if (control != Control.NONE && verdict.valid()) {
            exit = PROVED_NOTHING;
            words = "PROVED NOTHING: the " + control.label() + " control showed no anomaly, so this run cannot show the checker would catch one";
        } else if (!verdict.valid()) {
            exit = VIOLATIONS;
            words = verdict.violations().size() + " VIOLATIONS" + (control != Control.NONE ? " (expected: the " + control.label() + " control)" : "");
        } else if (!verdict.undecided().isEmpty()) {
            exit = PROVED_NOTHING;
            words = "PROVED LITTLE: 0 violations, but " + verdict.undecided().size() + " propert"
                    + (verdict.undecided().size() == 1 ? "y" : "ies") + " could not be judged: " + verdict.undecided().get(0)
                    + (verdict.undecided().size() > 1 ? " (all in summary.json)" : "");
        } else if (outside.unknownShare() > MAX_UNKNOWN_OUTSIDE_FAULTS) {
            exit = PROVED_NOTHING;
            words = String.format("PROVED LITTLE: 0 violations, but %s of the %d operations outside fault windows ended unknown"
                    + " (more than %.0f%%), and unknown operations are never judged", percent(outside.unknownShare()),
                    outside.ops(), MAX_UNKNOWN_OUTSIDE_FAULTS * 100);
        } else {
            exit = VALID;
            words = "VALID: 0 violations";
        }
        return new Summary(w.label(), control.label(), exit, words, all[0], all[1], all[2], all[3],
                verdict.violations().size(), verdict.excusedOverlaps(), keys, faultRows, verdict.violations(),
                w.countedInWords(), releases.size(), gone, windows, verdict.undecided());
    }

    private static void tally(long[] c, Op op) {
        c[0]++;
        c[op.outcome().ordinal() + 1]++;
    }

    static String percent(double share) {
        return String.format("%.1f%%", share * 100);
    }

    /** The tables, as text. */
    public static String tables(Summary s) {
        StringBuilder b = new StringBuilder();
        b.append("workload ").append(s.workload()).append(", control ").append(s.control()).append(": ")
                .append(s.ops()).append(" ops (ok ").append(s.ok()).append(", fail ").append(s.fail())
                .append(", unknown ").append(s.unknown()).append(")\n");
        if (!s.counted().isEmpty()) {
            b.append("  ").append(s.counted()).append('\n');
            b.append("  releases: ").append(s.releases()).append(", of which ").append(s.releasesGone())
                    .append(" answered 410 gone: the lease had ended before its release (a client paused past its ttl on purpose, or a fault ended it)\n");
        }
        b.append('\n').append(String.format("%-44s %8s %8s %8s %8s %10s%n", "key", "ops", "ok", "fail", "unknown", "violations"));
        for (Row r : s.keys()) {
            b.append(String.format("%-44s %8d %8d %8d %8d %10d%n", r.name(), r.ops(), r.ok(), r.fail(), r.unknown(), r.violations()));
        }
        b.append('\n').append(String.format("%-22s %8s %9s %8s %8s %8s %8s %8s %10s%n", "fault", "injected", "seconds", "ops", "ok",
                "fail", "unknown", "unknown%", "violations"));
        for (Row r : s.faults()) {
            b.append(String.format("%-22s %8d %9.1f %8d %8d %8d %8d %8s %10d%n", r.name(), r.injected(), r.seconds(), r.ops(), r.ok(),
                    r.fail(), r.unknown(), percent(r.unknownShare()), r.violations()));
        }
        b.append(String.format("(ops of a fault: those whose call overlapped one of its windows; unknown outside faults above %.0f%% proves little)%n",
                MAX_UNKNOWN_OUTSIDE_FAULTS * 100));
        List<Window> worst = s.windows().stream().filter(x -> x.unknown() > 0)
                .sorted(Comparator.comparingLong(Window::unknown).reversed()).limit(5).toList();
        if (!worst.isEmpty()) {
            long start = s.windows().stream().mapToLong(Window::startUs).min().orElse(0);
            b.append("windows with the most unknowns (all in summary.json):\n");
            for (Window x : worst) {
                b.append(String.format("  %-20s %-28s +%6.1f s %5.1f s %6d ops %6d unknown (%s)%n", x.kind(), x.scope(),
                        (x.startUs() - start) / 1e6, (x.endUs() - x.startUs()) / 1e6, x.ops(), x.unknown(),
                        percent(x.ops() == 0 ? 0 : (double) x.unknown() / x.ops())));
            }
        }
        if (s.excusedOverlaps() > 0) {
            b.append("\n").append(s.excusedOverlaps()).append(" overlapping leases excused: a fault that ends leases (Redis lost them, or"
                    + " a gateway's ZooKeeper session expired) reached the earlier lease's gateway, and struck after it was asked for"
                    + " and before the later grant\n");
        }
        s.undecided().stream().limit(5).forEach(u -> b.append("\nUNDECIDED: ").append(u));
        if (s.undecided().size() > 5) {
            b.append("\n... ").append(s.undecided().size() - 5).append(" more in summary.json");
        }
        int shown = 0;
        for (Violation v : s.violations()) {
            if (shown++ == 20) {
                b.append("... ").append(s.violations().size() - 20).append(" more in summary.json\n");
                break;
            }
            b.append("\nVIOLATION ").append(v.kind()).append(" on ").append(v.key()).append(": ").append(v.detail());
        }
        b.append("\n\n").append(s.verdict()).append('\n');
        return b.toString();
    }

    /** history.json, summary.json, timeline.html in {@code dir}. */
    public static void write(Path dir, History history, Summary summary) throws IOException {
        Files.createDirectories(dir);
        history.write(dir.resolve("history.json"));
        writeJudgement(dir, history, summary);
    }

    /** summary.json and timeline.html in {@code dir}: the judgement of a history already saved. */
    public static void writeJudgement(Path dir, History history, Summary summary) throws IOException {
        Files.createDirectories(dir);
        History.JSON.writeValue(dir.resolve("summary.json").toFile(), summary);
        Files.writeString(dir.resolve("timeline.html"), Timeline.html(history, summary));
    }
}
