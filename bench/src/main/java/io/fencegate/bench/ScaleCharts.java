package io.fencegate.bench;

import java.util.List;
import java.util.Locale;

/**
 * Hand-written SVG line charts for the scale curves: the size on a log x axis, the figure on a
 * linear y axis from zero, one line per series (fencegate's first, in blue). A flat line is the
 * result these curves look for.
 */
final class ScaleCharts {
    private static final String[] COLOURS = {"#1f5fa8", "#c0392b", "#27ae60", "#8e44ad", "#7f8c8d"};
    private static final int LEFT = 70;
    private static final int TOP = 40;
    private static final int W = 520;
    private static final int H = 220;

    /** One line: a name and its points (x, y). */
    record Series(String name, List<double[]> points) { }

    private ScaleCharts() {}

    static String lines(String title, String xLabel, String yLabel, List<Series> series) {
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        double maxY = 0;
        for (Series s : series) {
            for (double[] p : s.points()) {
                minX = Math.min(minX, p[0]);
                maxX = Math.max(maxX, p[0]);
                if (!Double.isNaN(p[1])) {
                    maxY = Math.max(maxY, p[1]);
                }
            }
        }
        maxY = maxY <= 0 ? 1 : maxY * 1.15;
        double lo = Math.log10(Math.max(minX, 1e-9));
        double hi = Math.max(Math.log10(Math.max(maxX, 1e-9)), lo + 1e-9);
        StringBuilder svg = new StringBuilder();
        int width = LEFT + W + 200;
        int height = TOP + H + 60;
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n"
                + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n", width, height, width, height));
        svg.append(text(10, 20, title, "bold", "start"));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                LEFT, TOP + H, LEFT + W, TOP + H));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                LEFT, TOP, LEFT, TOP + H));
        for (int i = 0; i <= 4; i++) {
            double v = maxY * i / 4;
            int y = TOP + H - (int) Math.round(H * i / 4.0);
            svg.append(text(LEFT - 6, y + 4, format(v), "normal", "end"));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e0e0e0\"/>%n",
                    LEFT + 1, y, LEFT + W, y));
        }
        for (int s = 0; s < series.size(); s++) {
            String colour = COLOURS[s % COLOURS.length];
            StringBuilder path = new StringBuilder();
            for (double[] p : series.get(s).points()) {
                if (Double.isNaN(p[1])) {
                    continue;
                }
                int x = LEFT + (int) Math.round(W * (Math.log10(p[0]) - lo) / (hi - lo));
                int y = TOP + H - (int) Math.round(H * p[1] / maxY);
                path.append(path.length() == 0 ? "M" : " L").append(x).append(' ').append(y);
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>%n", x, y, colour));
                if (s == 0) {
                    svg.append(text(x, TOP + H + 16, format(p[0]), "normal", "middle"));
                }
            }
            svg.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                    path, colour));
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    LEFT + W + 16, TOP + 18 * s, colour));
            svg.append(text(LEFT + W + 34, TOP + 18 * s + 11, series.get(s).name(), "normal", "start"));
        }
        svg.append(text(LEFT + W / 2, TOP + H + 40, xLabel + " (log scale)", "normal", "middle"));
        svg.append(text(10, TOP - 10, yLabel, "normal", "start"));
        return svg.append("</svg>\n").toString();
    }

    private static String format(double v) {
        if (v >= 1_000_000 && v % 1_000_000 == 0) {
            return String.format(Locale.ROOT, "%.0fM", v / 1_000_000);
        }
        if (v >= 1000 && v % 1000 == 0) {
            return String.format(Locale.ROOT, "%.0fk", v / 1000);
        }
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String text(int x, int y, String s, String weight, String anchor) {
        String escaped = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"%s\" text-anchor=\"%s\">%s</text>%n",
                x, y, weight, anchor, escaped);
    }
}
