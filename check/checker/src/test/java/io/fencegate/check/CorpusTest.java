package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The corpus of crafted histories (src/test/resources/corpus): each is a history file as
 * {@code --history} reads it, planted with one known violation, or one excuse, or too little to
 * decide, or valid with concurrency, waiting and faults close together, and states what it must be
 * judged: {@code expect} names the exit code, the violation kinds and the excused overlaps. Every one
 * is judged as a run is, and the score is printed.
 */
class CorpusTest {
    private static final AtomicInteger JUDGED = new AtomicInteger();
    private static final AtomicInteger RIGHT = new AtomicInteger();

    static Stream<Path> corpus() throws IOException, URISyntaxException {
        Path dir = Path.of(CorpusTest.class.getResource("/corpus").toURI());
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            assertThat(all).as("the corpus").hasSizeGreaterThanOrEqualTo(20);
            return all.stream();
        }
    }

    /** What a corpus file must be judged, as it states it. */
    private record Expected(int exit, Set<String> kinds, int excused, String about) {
        static Expected of(Path file) throws IOException {
            JsonNode e = History.JSON.readTree(file.toFile()).get("expect");
            Set<String> kinds = new TreeSet<>();
            e.get("kinds").forEach(k -> kinds.add(k.asText()));
            return new Expected(e.get("exit").asInt(), kinds, e.get("excused").asInt(), e.get("about").asText());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void craftedHistoryIsJudgedAsItStates(Path file) throws IOException {
        Expected expected = Expected.of(file);
        History h = new History();
        h.addAll(History.read(file));
        Workload w = Workload.parse(h.workload());
        Control c = Control.parse(h.control());
        Verdict v = Checker.check(w, h.ops(), h.faults());
        Report.Summary s = Report.summarize(v, c, h.ops(), h.faults());
        Set<String> kinds = v.violations().stream().map(Violation::kind).collect(Collectors.toCollection(TreeSet::new));
        JUDGED.incrementAndGet();
        String judged = file.getFileName() + " (" + expected.about() + "): " + s.verdict() + " " + v.violations()
                + " excused " + v.excusedOverlaps();
        assertThat(s.exitCode()).as(judged).isEqualTo(expected.exit());
        assertThat(kinds).as(judged).isEqualTo(expected.kinds());
        assertThat(v.excusedOverlaps()).as(judged).isEqualTo(expected.excused());
        RIGHT.incrementAndGet();
    }

    @Test
    void corpusFilesAreWhatHistoryReads(@TempDir Path out) throws Exception {
        Path file = corpus().filter(p -> p.getFileName().toString().equals("counter-fence-broken.json")).findFirst().orElseThrow();
        PrintStream old = System.out;
        System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            assertThat(CheckCommand.execute("--history", file.toString(), "--out", out.toString())).isEqualTo(Report.VIOLATIONS);
        } finally {
            System.setOut(old);
        }
        assertThat(Files.readString(out.resolve("summary.json"))).contains(Violation.FENCE_BROKEN);
    }

    @AfterAll
    static void printScore() {
        System.out.printf("corpus: %d of %d crafted histories judged as they state%n", RIGHT.get(), JUDGED.get());
    }
}
