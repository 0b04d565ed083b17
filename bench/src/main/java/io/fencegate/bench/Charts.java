package io.fencegate.bench;

import java.util.List;
import java.util.Locale;

/**
 * Hand-written SVG: one chart per report section, a group of horizontal bars per scenario, each
 * bar a contender's median throughput scaled to the fastest in its group (fencegate in blue).
 */
final class Charts {
    private static final int LABEL = 420;
    private static final int BAR = 360;
    private static final int ROW = 18;

    private Charts() {}

    static String throughput(String title, List<Scenario> scenarios) {
        StringBuilder body = new StringBuilder();
        int y = 40;
        for (Scenario s : scenarios) {
            body.append(text(10, y, s.title() + ", c=" + s.concurrency() + " (" + s.unit() + "/s)", "bold"));
            y += 8;
            double max = 0;
            for (List<Sample> runs : s.samples()) {
                max = Math.max(max, Report.stat(runs, Sample::throughput).median());
            }
            for (int i = 0; i < s.contenders().size(); i++) {
                double median = Report.stat(s.samples().get(i), Sample::throughput).median();
                int width = max > 0 && !Double.isNaN(median) ? (int) Math.round(BAR * median / max) : 0;
                String colour = i == 0 ? "#1f5fa8" : "#9aa4ad";
                body.append(String.format(Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                        LABEL, y, Math.max(width, 1), ROW - 4, colour));
                body.append(text(20, y + ROW - 6, s.contenders().get(i).name(), "normal"));
                body.append(text(LABEL + width + 6, y + ROW - 6,
                        Double.isNaN(median) ? "–" : String.format(Locale.ROOT, "%,.0f", median), "normal"));
                y += ROW;
            }
            y += 16;
        }
        int height = y + 10;
        int width = LABEL + BAR + 110;
        return String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                        + " font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                width, height, width, height)
                + text(10, 20, title + ": throughput, median of the repetitions (longer is faster)", "bold")
                + body + "</svg>\n";
    }

    private static String text(int x, int y, String s, String weight) {
        String escaped = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"%s\">%s</text>%n", x, y, weight, escaped);
    }
}
