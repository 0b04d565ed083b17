package io.fencegate.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The demo's table (stdout), its chart (a hand-written SVG) and a TSV of the same numbers for tests. */
final class Report {
    private Report() {
    }

    static void table(List<ModeResult> results, PrintStream out) {
        String row = "%-32s %7s %11s %11s %14s %13s  %s%n";
        out.printf(row, "mode", "orders", "sold/stock", "stock left", "stale refused", "lost updates", "verdict");
        for (ModeResult r : results) {
            out.printf(row, r.mode().number + " " + r.mode().title, r.sold(), r.sold() + "/" + r.stock(), r.stockLeft(),
                    r.staleRefused(), r.lostUpdates(), verdict(r));
        }
    }

    static String verdict(ModeResult r) {
        if (r.exact()) {
            return "exact";
        }
        StringBuilder v = new StringBuilder();
        if (r.oversold() > 0) {
            v.append("OVERSOLD by ").append(r.oversold());
        }
        if (r.lostUpdates() > 0) {
            v.append(v.length() > 0 ? ", " : "").append(r.lostUpdates()).append(" update(s) LOST");
        }
        return v.length() > 0 ? v.toString() : "WRONG (sold " + r.sold() + ", " + r.stockLeft() + " left)";
    }

    static void tsv(List<ModeResult> results, Path file) throws IOException {
        StringBuilder tsv = new StringBuilder("mode\torders\tstock\tstock_left\tstale_refused\tlost_updates\toversold\texact\tpaused_ms\tattempt\n");
        for (ModeResult r : results) {
            tsv.append(r.mode().number).append('\t').append(r.sold()).append('\t').append(r.stock()).append('\t')
                    .append(r.stockLeft()).append('\t').append(r.staleRefused()).append('\t').append(r.lostUpdates())
                    .append('\t').append(r.oversold()).append('\t').append(r.exact()).append('\t')
                    .append(r.pausedMs()).append('\t').append(r.attempt()).append('\n');
        }
        write(file, tsv.toString());
    }

    /** One bar per mode: units sold, red past the stock line, with the verdict under it. */
    static void svg(List<ModeResult> results, String subtitle, Path file) throws IOException {
        int width = 960;
        int height = 360;
        int left = 40;
        int top = 60;
        int plotHeight = 200;
        int slot = (width - left - 20) / results.size();
        int max = results.stream().mapToInt(r -> Math.max(r.sold(), r.stock())).max().orElse(1) + 1;
        double unit = (double) plotHeight / max;
        int base = top + plotHeight;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
                .append("\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n")
                .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
                .append("<text x=\"").append(left).append("\" y=\"24\" font-size=\"17\" font-weight=\"bold\">")
                .append("Units sold of ").append(results.get(0).stock()).append(" in stock, one buyer paused past its lease</text>\n")
                .append("<text x=\"").append(left).append("\" y=\"44\" fill=\"#555\">").append(escape(subtitle)).append("</text>\n")
                .append("<line x1=\"").append(left).append("\" y1=\"").append(base).append("\" x2=\"").append(width - 20)
                .append("\" y2=\"").append(base).append("\" stroke=\"#333\"/>\n");
        for (int i = 0; i < results.size(); i++) {
            ModeResult r = results.get(i);
            int x = left + i * slot + slot / 4;
            int barWidth = slot / 2;
            int barHeight = (int) Math.round(r.sold() * unit);
            String colour = r.exact() ? "#2e7d32" : "#c62828";
            svg.append("<rect x=\"").append(x).append("\" y=\"").append(base - barHeight).append("\" width=\"").append(barWidth)
                    .append("\" height=\"").append(barHeight).append("\" fill=\"").append(colour).append("\"/>\n");
            int stockY = base - (int) Math.round(r.stock() * unit);
            svg.append("<line x1=\"").append(x - 8).append("\" y1=\"").append(stockY).append("\" x2=\"").append(x + barWidth + 8)
                    .append("\" y2=\"").append(stockY).append("\" stroke=\"#111\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n");
            int centre = x + barWidth / 2;
            text(svg, centre, base - barHeight - 6, r.sold() + " sold", "bold", "#111");
            text(svg, centre, base + 18, r.mode().number + ". " + r.mode().title, "bold", "#111");
            text(svg, centre, base + 36, r.exact() ? "exact" : r.oversold() > 0 ? "OVERSOLD by " + r.oversold() : "WRONG", "bold", colour);
            text(svg, centre, base + 54, r.lostUpdates() + " lost · " + r.stockLeft() + " left · " + r.staleRefused()
                    + " stale refused", "normal", "#555");
        }
        svg.append("<text x=\"").append(left).append("\" y=\"").append(height - 12)
                .append("\" fill=\"#555\">dashed line: the stock there was · ./fencegate demo</text>\n</svg>\n");
        write(file, svg.toString());
    }

    private static void text(StringBuilder svg, int x, int y, String text, String weight, String colour) {
        svg.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" text-anchor=\"middle\" font-weight=\"")
                .append(weight).append("\" fill=\"").append(colour).append("\">").append(escape(text)).append("</text>\n");
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static void write(Path file, String content) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, content);
    }
}
