package io.fencegate.check;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * timeline.html: an SVG with a band per fault kind (each window titled with its operations and
 * unknown share), below it ok / fail / unknown counts per second, violations as red lines.
 */
final class Timeline {

    private Timeline() {}

    static String html(History history, Report.Summary summary) {
        Workload workload = Workload.parse(summary.workload());
        List<Op> ops = history.ops().stream().filter(workload::counts).toList();
        if (ops.isEmpty()) {
            return "<!doctype html><title>fencegate check</title><p>No operations.</p>";
        }
        long start = ops.get(0).invokeUs();
        long end = ops.stream().mapToLong(Op::completeUs).max().orElse(start + 1);
        int seconds = (int) Math.max(1, (end - start) / 1_000_000 + 1);
        double width = 1000.0 / seconds;
        List<Report.Window> windows = summary.windows();
        Map<String, Integer> lanes = new LinkedHashMap<>();
        windows.forEach(f -> lanes.putIfAbsent(f.kind(), lanes.size()));
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
        for (Report.Window f : windows) {
            double x = (f.startUs() - start) / 1e6 * width;
            double w = Math.max(2, (f.endUs() - f.startUs()) / 1e6 * width);
            String title = f.kind() + " on " + f.scope() + ": " + f.ops() + " ops, " + f.unknown() + " unknown ("
                    + Report.percent(f.ops() == 0 ? 0 : (double) f.unknown() / f.ops()) + ")";
            svg.append(String.format("<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='%s'><title>%s</title></rect>",
                    x, lanes.get(f.kind()) * laneHeight, w, laneHeight - 3, f.unknown() > 0 ? "#ef6c00" : "#5c6bc0", escape(title)));
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
        Report.Row outside = summary.faults().stream().filter(r -> r.name().equals(Report.OUTSIDE_FAULTS)).findFirst().orElse(null);
        String unknowns = outside == null ? "" : "<p>Outside fault windows: " + outside.ops() + " ops, " + outside.unknown()
                + " unknown (" + Report.percent(outside.unknownShare()) + "; above "
                + Math.round(Report.MAX_UNKNOWN_OUTSIDE_FAULTS * 100) + "% the run proves little). A fault band is orange if"
                + " operations during it ended unknown; hover a band for its counts.</p>";
        return "<!doctype html><meta charset='utf-8'><title>fencegate check: " + summary.workload() + "</title>"
                + "<body style='font-family:sans-serif'><h1>fencegate check: " + summary.workload() + "</h1><p>"
                + escape(summary.verdict()) + "</p><p>Bands: faults. Bars: " + (workload.writesItems() ? "writes" : "grants")
                + " completed per second, <span style='color:#2e7d32'>ok</span>, <span style='color:#9e9e9e'>fail</span>,"
                + " <span style='color:#ef6c00'>unknown</span>; red lines: violations.</p>" + unknowns + svg
                + "<pre>" + escape(Report.tables(summary)) + "</pre></body>";
    }

    private static String escape(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
