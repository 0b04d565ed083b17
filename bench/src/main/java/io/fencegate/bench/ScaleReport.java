package io.fencegate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scale section of docs/BENCHMARKS.md, between two markers: {@code --profile scale} rewrites
 * the curves it ran and keeps the others (each curve sits between markers of its own, so one curve
 * can be run again alone), and the other profiles' report carries the section over ({@link #carried}).
 */
final class ScaleReport {
    static final String START = "<!-- scale: written by ./bench/run --profile scale -->";
    static final String END = "<!-- end of scale -->";
    /** The parts in the order they appear; a part this run did not write keeps its earlier text. */
    static final List<String> PARTS = List.of("intro", "locks", "items", "waiters", "watchers", "values", "memory");

    private final Map<String, StringBuilder> parts = new LinkedHashMap<>();
    private final Path charts;
    private StringBuilder current;

    ScaleReport(Path markdown) throws IOException {
        this.charts = markdown.toAbsolutePath().getParent().resolve("benchmarks");
        Files.createDirectories(charts);
        part("intro");
    }

    /** What follows belongs to {@code name} (one of {@link #PARTS}). */
    ScaleReport part(String name) {
        if (!PARTS.contains(name)) {
            throw new IllegalArgumentException("no scale part " + name);
        }
        current = parts.computeIfAbsent(name, n -> new StringBuilder());
        return this;
    }

    ScaleReport text(String text) {
        current.append(text);
        return this;
    }

    /** Writes {@code svg} as benchmarks/{@code file} and links it here. */
    ScaleReport chart(String file, String alt, String svg) throws IOException {
        Files.writeString(charts.resolve(file), svg);
        current.append("![").append(alt).append("](benchmarks/").append(file).append(")\n\n");
        return this;
    }

    void write(Path markdown) throws IOException {
        String existing = Files.exists(markdown) ? Files.readString(markdown) : "";
        int from = existing.indexOf(START);
        int to = existing.indexOf(END);
        String old = from >= 0 && to > from ? existing.substring(from, to) : "";
        StringBuilder block = new StringBuilder(START).append('\n');
        for (String name : PARTS) {
            String open = "<!-- scale:" + name + " -->\n";
            String close = "<!-- /scale:" + name + " -->\n";
            StringBuilder mine = parts.get(name);
            if (mine != null && mine.length() > 0) {
                block.append(open).append(mine).append(close);
            } else {
                int a = old.indexOf(open);
                int b = old.indexOf(close);
                if (a >= 0 && b > a) {
                    block.append(old, a, b + close.length());
                }
            }
        }
        block.append(END).append('\n');
        String out = from >= 0 && to > from
                ? existing.substring(0, from) + block + existing.substring(Math.min(existing.length(), to + END.length() + 1))
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
