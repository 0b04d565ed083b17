package io.fencegate.check;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run shows: a table per key and per fault kind, the exit code, and the files: history.json,
 * summary.json and timeline.html (faults as bands, outcomes per second).
 */
public final class Report {
    public static final int VALID = 0;
    public static final int VIOLATIONS = 1;
    public static final int PROVED_NOTHING = 2;

    /** One row of a table: the counted operations (writes, or grants for the mutex) by outcome. */
    public record Row(String name, long ops, long ok, long fail, long unknown, long violations, double seconds, long injected) {}

    public record Summary(String workload, String control, int exitCode, String verdict, long ops, long ok, long fail,
            long unknown, int violationCount, int excusedOverlaps, List<Row> keys, List<Row> faults,
            List<Violation> violations) {}

    private Report() {}

    /** The operation each workload is judged by. */
    static boolean counted(Workload w, Op op) {
        return w == Workload.MUTEX ? op.is(Op.ACQUIRE) : op.is(Op.WRITE);
    }

    public static Summary summarize(Verdict verdict, Control control, List<Op> ops, List<Fault> faults) {
        Workload w = verdict.workload();
        List<Op> counted = ops.stream().filter(o -> counted(w, o)).toList();
        Map<String, long[]> byKey = new TreeMap<>();
        for (Op op : counted) {
            tally(byKey.computeIfAbsent(op.key(), k -> new long[5]), op);
        }
        for (Violation v : verdict.violations()) {
            byKey.computeIfAbsent(v.key(), k -> new long[5])[4]++;
        }
        List<Row> keys = new ArrayList<>();
        byKey.forEach((k, c) -> keys.add(new Row(k, c[0], c[1], c[2], c[3], c[4], 0, 0)));

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
        faultRows.add(new Row("(no fault)", none[0], none[1], none[2], none[3], 0, 0, 0));

        long[] all = new long[5];
        counted.forEach(o -> tally(all, o));
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
        } else {
            exit = VALID;
            words = "VALID: 0 violations";
        }
        return new Summary(w.label(), control.label(), exit, words, all[0], all[1], all[2], all[3],
                verdict.violations().size(), verdict.excusedOverlaps(), keys, faultRows, verdict.violations());
    }

    private static void tally(long[] c, Op op) {
        c[0]++;
        c[op.outcome().ordinal() + 1]++;
    }

    /** The tables, as text. */
    public static String tables(Summary s) {
        StringBuilder b = new StringBuilder();
        b.append("workload ").append(s.workload()).append(", control ").append(s.control()).append(": ")
                .append(s.ops()).append(" ops (ok ").append(s.ok()).append(", fail ").append(s.fail())
                .append(", unknown ").append(s.unknown()).append(")\n\n");
        b.append(String.format("%-44s %8s %8s %8s %8s %10s%n", "key", "ops", "ok", "fail", "unknown", "violations"));
        for (Row r : s.keys()) {
            b.append(String.format("%-44s %8d %8d %8d %8d %10d%n", r.name(), r.ops(), r.ok(), r.fail(), r.unknown(), r.violations()));
        }
        b.append('\n').append(String.format("%-22s %8s %9s %8s %8s %8s %8s %10s%n", "fault", "injected", "seconds", "ops", "ok", "fail", "unknown", "violations"));
        for (Row r : s.faults()) {
            b.append(String.format("%-22s %8d %9.1f %8d %8d %8d %8d %10d%n", r.name(), r.injected(), r.seconds(), r.ops(), r.ok(), r.fail(), r.unknown(), r.violations()));
        }
        if (s.excusedOverlaps() > 0) {
            b.append("\n").append(s.excusedOverlaps()).append(" overlapping leases excused: a fault ended the earlier lease early (Redis lost it, or its ZooKeeper session expired)\n");
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
        History.JSON.writeValue(dir.resolve("summary.json").toFile(), summary);
        Files.writeString(dir.resolve("timeline.html"), timeline(history, summary));
    }

    /** An SVG timeline: a band per fault kind, and below it ok / fail / unknown counts per second, violations in red. */
    static String timeline(History history, Summary summary) {
        List<Op> ops = history.ops().stream().filter(o -> counted(Workload.parse(summary.workload()), o)).toList();
        List<Fault> faults = history.faults();
        if (ops.isEmpty()) {
            return "<!doctype html><title>fencegate check</title><p>No operations.</p>";
        }
        long start = ops.get(0).invokeUs();
        long end = ops.stream().mapToLong(Op::completeUs).max().orElse(start + 1);
        int seconds = (int) Math.max(1, (end - start) / 1_000_000 + 1);
        double width = 1000.0 / seconds;
        Map<String, Integer> lanes = new LinkedHashMap<>();
        faults.forEach(f -> lanes.putIfAbsent(f.kind(), lanes.size()));
        int laneHeight = 16;
        int chartTop = lanes.size() * laneHeight + 10;
        int chartHeight = 200;
        long[][] perSecond = new long[seconds][3];
        for (Op o : ops) {
            int s = (int) Math.min(seconds - 1, Math.max(0, (o.completeUs() - start) / 1_000_000));
            perSecond[s][o.outcome().ordinal()]++;
        }
        long max = 1;
        for (long[] s : perSecond) {
            max = Math.max(max, s[0] + s[1] + s[2]);
        }
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns='http://www.w3.org/2000/svg' width='1160' height='").append(chartTop + chartHeight + 40).append("'>");
        String[] colours = {"#2e7d32", "#9e9e9e", "#ef6c00"};
        lanes.forEach((kind, lane) -> svg.append("<text x='1005' y='").append(lane * laneHeight + 12).append("' font-size='11'>").append(kind).append("</text>"));
        for (Fault f : faults) {
            double x = (f.startUs() - start) / 1e6 * width;
            double w = Math.max(2, (f.endUs() - f.startUs()) / 1e6 * width);
            svg.append(String.format("<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#5c6bc0'><title>%s %s</title></rect>",
                    x, lanes.get(f.kind()) * laneHeight, w, laneHeight - 3, f.kind(), escape(f.detail())));
        }
        for (int s = 0; s < seconds; s++) {
            double y = chartTop + chartHeight;
            for (int k = 0; k < 3; k++) {
                double h = perSecond[s][k] * (double) chartHeight / max;
                y -= h;
                svg.append(String.format("<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'/>", s * width, y, Math.max(0.5, width - 0.5), h, colours[k]));
            }
        }
        for (Violation v : summary.violations()) {
            double x = (v.atUs() - start) / 1e6 * width;
            svg.append(String.format("<line x1='%.1f' x2='%.1f' y1='0' y2='%d' stroke='#d50000' stroke-width='1.5'><title>%s</title></line>",
                    x, x, chartTop + chartHeight, escape(v.kind() + " " + v.key() + ": " + v.detail())));
        }
        svg.append("<text x='0' y='").append(chartTop + chartHeight + 16).append("' font-size='11'>0 s</text>");
        svg.append("<text x='960' y='").append(chartTop + chartHeight + 16).append("' font-size='11'>").append(seconds).append(" s</text>");
        svg.append("</svg>");
        return "<!doctype html><meta charset='utf-8'><title>fencegate check: " + summary.workload() + "</title>"
                + "<body style='font-family:sans-serif'><h1>fencegate check: " + summary.workload() + "</h1><p>"
                + escape(summary.verdict()) + "</p><p>Bands: faults. Bars: " + (summary.workload().equals("mutex") ? "grants" : "writes")
                + " completed per second, <span style='color:#2e7d32'>ok</span>, <span style='color:#9e9e9e'>fail</span>,"
                + " <span style='color:#ef6c00'>unknown</span>; red lines: violations.</p>" + svg
                + "<pre>" + escape(tables(summary)) + "</pre></body>";
    }

    private static String escape(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
