package io.fencegate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The targets table of a kept earlier report, so a new report shows each target's figure before
 * the optimisation work beside today's. Rows are matched by their label; a row the baseline does
 * not have shows "–".
 */
final class Baseline {
    /** Where the kept report lives, relative to the directory of docs/BENCHMARKS.md. */
    static final String PATH = "benchmarks/before/BENCHMARKS.md";

    private final Map<String, String> measuredByLabel;

    private Baseline(Map<String, String> measuredByLabel) {
        this.measuredByLabel = measuredByLabel;
    }

    /** The baseline at {@code report}, or an empty one if there is no such file. */
    static Baseline read(Path report) throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        if (Files.isRegularFile(report)) {
            for (String line : Files.readAllLines(report)) {
                String[] cells = cells(line);
                if (cells.length == 3 && !cells[0].equals("target") && !cells[0].startsWith("---")) {
                    rows.putIfAbsent(cells[0], cells[1]);
                }
            }
        }
        return new Baseline(rows);
    }

    boolean isEmpty() {
        return measuredByLabel.isEmpty();
    }

    /** {@code | label | now | met |} with the baseline's figure for the label put after the label. */
    String withBefore(String row) {
        String[] cells = cells(row);
        if (isEmpty() || cells.length != 3) {
            return row;
        }
        String before = measuredByLabel.getOrDefault(cells[0], measuredByLabel.getOrDefault(unshaped(cells[0]), "–"));
        return "| " + cells[0] + " | " + before + " | " + cells[1] + " | " + cells[2] + " |";
    }

    /**
     * A blocking-threads row's label as the kept report wrote it: that report drove the lease
     * issuers from blocking threads only, and its labels named no call shape.
     */
    private static String unshaped(String label) {
        return label.replace(", blocking)", ")").replace(" (blocking) ", " ");
    }

    /** The cells of a Markdown table row, trimmed; none for a line that is not a row. */
    private static String[] cells(String line) {
        String t = line.strip();
        if (!t.startsWith("|") || !t.endsWith("|") || t.length() < 2) {
            return new String[0];
        }
        String[] cells = t.substring(1, t.length() - 1).split("\\|", -1);
        for (int i = 0; i < cells.length; i++) {
            cells[i] = cells[i].strip();
        }
        return cells;
    }
}
