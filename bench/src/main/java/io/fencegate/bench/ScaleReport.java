package io.fencegate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The scale section of docs/BENCHMARKS.md, between two markers: {@code --profile scale} replaces
 * it (or appends it), and the other profiles' report carries it over unchanged ({@link #carried}).
 */
final class ScaleReport {
    static final String START = "<!-- scale: written by ./bench/run --profile scale -->";
    static final String END = "<!-- end of scale -->";

    private final StringBuilder md = new StringBuilder();
    private final Path charts;

    ScaleReport(Path markdown) throws IOException {
        this.charts = markdown.toAbsolutePath().getParent().resolve("benchmarks");
        Files.createDirectories(charts);
    }

    ScaleReport text(String text) {
        md.append(text);
        return this;
    }

    /** Writes {@code svg} as benchmarks/{@code file} and links it here. */
    ScaleReport chart(String file, String alt, String svg) throws IOException {
        Files.writeString(charts.resolve(file), svg);
        md.append("![").append(alt).append("](benchmarks/").append(file).append(")\n\n");
        return this;
    }

    void write(Path markdown) throws IOException {
        String block = START + "\n" + md + END + "\n";
        String existing = Files.exists(markdown) ? Files.readString(markdown) : "";
        int from = existing.indexOf(START);
        int to = existing.indexOf(END);
        String out = from >= 0 && to > from
                ? existing.substring(0, from) + block + existing.substring(to + END.length() + 1)
                : existing + (existing.isEmpty() || existing.endsWith("\n\n") ? "" : "\n") + block;
        Files.writeString(markdown, out);
    }

    /** The scale block of {@code markdown} with its markers and a newline, or "" if it has none. */
    static String carried(Path markdown) throws IOException {
        if (!Files.exists(markdown)) {
            return "";
        }
        String existing = Files.readString(markdown);
        int from = existing.indexOf(START);
        int to = existing.indexOf(END);
        return from >= 0 && to > from ? "\n" + existing.substring(from, to + END.length()) + "\n" : "";
    }
}
