package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class FileTokenHighWaterMarkTest {

    @TempDir
    Path dir;

    @Test
    void markStartsAtZeroAndSurvivesANewInstance() {
        Path file = dir.resolve("marks/redis.mark");
        assertThat(new FileTokenHighWaterMark(file).read()).isZero();
        assertThat(new FileTokenHighWaterMark(file).raise(0, 1000)).isEqualTo(1000);
        assertThat(new FileTokenHighWaterMark(file).read()).isEqualTo(1000);
        assertThat(new FileTokenHighWaterMark(file).raise(5000, 1000)).isEqualTo(6000);
        assertThat(new FileTokenHighWaterMark(file).raise(10, 1000)).isEqualTo(7000);
    }

    @Test
    void aMarksIdentityIsItsFilesCopiesIncludedAndAnotherFileIsAnotherMark() throws Exception {
        Path file = dir.resolve("a/redis.mark");
        String id = new FileTokenHighWaterMark(file).identity();
        assertThat(id).isNotBlank();
        assertThat(new FileTokenHighWaterMark(file).identity()).isEqualTo(id);
        new FileTokenHighWaterMark(file).raise(0, 10);
        assertThat(new FileTokenHighWaterMark(file).identity()).as("a raise keeps it").isEqualTo(id);
        Files.createDirectories(dir.resolve("b"));
        Files.copy(file, dir.resolve("b/redis.mark"));
        assertThat(new FileTokenHighWaterMark(dir.resolve("b/redis.mark")).identity()).as("a copy is the same mark").isEqualTo(id);
        assertThat(new FileTokenHighWaterMark(dir.resolve("c/redis.mark")).identity()).isNotEqualTo(id);
    }

    @Test
    void aMarkFileFromBeforeIdentitiesKeepsItsMarkAndGetsOne() throws Exception {
        Path file = dir.resolve("old.mark");
        Files.writeString(file, "fencegate-token-high-water-mark v1\n1234\n");
        FileTokenHighWaterMark mark = new FileTokenHighWaterMark(file);
        String id = mark.identity();
        assertThat(id).isNotBlank();
        assertThat(mark.read()).isEqualTo(1234);
        assertThat(new FileTokenHighWaterMark(file).identity()).isEqualTo(id);
    }

    @Test
    void corruptMarkIsRefusedNeverReadAsZero() throws Exception {
        Path file = dir.resolve("redis.mark");
        Files.writeString(file, "fencegate-token-high-water-mark v1\n12x\n");
        assertThatThrownBy(() -> new FileTokenHighWaterMark(file).raise(0, 10)).hasMessageContaining("corrupt");
        Files.writeString(file, "");
        assertThatThrownBy(() -> new FileTokenHighWaterMark(file).read()).hasMessageContaining("not a mark file");
    }

    @Test
    void noTempFilesAreLeftBehind() throws Exception {
        FileTokenHighWaterMark mark = new FileTokenHighWaterMark(dir.resolve("redis.mark"));
        for (int i = 0; i < 5; i++) {
            mark.raise(0, 7);
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("redis.mark", "redis.mark.lock");
        }
    }

    @Test
    void concurrentBlockAllocationsFromTwoInstancesNeverOverlap() throws Exception {
        Path file = dir.resolve("shared.mark");
        FileTokenHighWaterMark first = new FileTokenHighWaterMark(file);
        FileTokenHighWaterMark second = new FileTokenHighWaterMark(file);
        long block = 100;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<List<Long>>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            FileTokenHighWaterMark mark = t % 2 == 0 ? first : second;
            Callable<List<Long>> raiser = () -> {
                List<Long> ends = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    ends.add(mark.raise(0, block));
                }
                return ends;
            };
            futures.add(pool.submit(raiser));
        }
        List<Long> ends = new ArrayList<>();
        for (Future<List<Long>> f : futures) {
            ends.addAll(f.get(30, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertBlocksDisjoint(ends, block, 100);
    }

    @Test
    void concurrentBlockAllocationsFromTwoProcessesNeverOverlap() throws Exception {
        Path file = dir.resolve("shared.mark");
        long block = 10;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> children = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            children.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    HighWaterMarkRaiser.class.getName(), file.toString(), "60", Long.toString(block))
                    .redirectError(new File(dir.toFile(), "child-" + i + ".err")).start());
        }
        FileTokenHighWaterMark own = new FileTokenHighWaterMark(file);
        List<Long> ends = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            ends.add(own.raise(0, block));
        }
        for (Process child : children) {
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();
            out.lines().map(Long::parseLong).forEach(ends::add);
        }
        assertBlocksDisjoint(ends, block, 180);
    }

    /**
     * A mark named through a symbolic link is the link's target: one lock, one file, and the link
     * stays a link (a rename over the link's own name would split the mark in two).
     */
    @Test
    void aMarkNamedThroughASymbolicLinkIsItsTargetAndTheLinkStays() throws Exception {
        Path real = Files.createDirectories(dir.resolve("real")).resolve("redis.mark");
        Path link = Files.createSymbolicLink(dir.resolve("redis.mark"), real);
        FileTokenHighWaterMark viaLink = new FileTokenHighWaterMark(link);
        FileTokenHighWaterMark direct = new FileTokenHighWaterMark(real);
        assertThat(viaLink.raise(0, 1000)).isEqualTo(1000);
        assertThat(direct.read()).as("the target after a raise through the link").isEqualTo(1000);
        assertThat(direct.raise(0, 1000)).isEqualTo(2000);
        assertThat(viaLink.read()).isEqualTo(2000);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(viaLink.file()).isEqualTo(real.toRealPath());
    }

    /** A link made before its target exists (a fresh install) names the target, which the first raise creates. */
    @Test
    void aDanglingSymbolicLinkNamesTheMarkItsFirstRaiseCreates() throws Exception {
        Path real = dir.resolve("real.mark");
        Path link = Files.createSymbolicLink(dir.resolve("redis.mark"), Path.of("real.mark"));
        assertThat(new FileTokenHighWaterMark(link).raise(0, 10)).isEqualTo(10);
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(new FileTokenHighWaterMark(real).read()).isEqualTo(10);
    }

    /** A second hard link would keep the old mark when a raise renames a new file over the other name. */
    @Test
    void aMarkWithASecondHardLinkIsRefused() throws Exception {
        Path file = dir.resolve("redis.mark");
        new FileTokenHighWaterMark(file).raise(0, 10);
        Files.createLink(dir.resolve("copy.mark"), file);
        assertThatThrownBy(() -> new FileTokenHighWaterMark(file).raise(0, 10))
                .hasMessageContaining("hard links");
    }

    /**
     * Two processes raise one mark, one through a symbolic link and one through the real path,
     * while this one reads it: the blocks they reserve never overlap and the mark never goes down.
     */
    @Test
    void raisesThroughALinkAndTheRealPathInTwoProcessesNeverOverlapAndTheMarkNeverGoesDown() throws Exception {
        Path real = Files.createDirectories(dir.resolve("real")).resolve("shared.mark");
        Path link = Files.createSymbolicLink(dir.resolve("shared.mark"), real);
        long block = 10;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> children = new ArrayList<>();
        for (Path name : List.of(link, real)) {
            children.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    HighWaterMarkRaiser.class.getName(), name.toString(), "100", Long.toString(block))
                    .redirectError(new File(dir.toFile(), "child-" + children.size() + ".err")).start());
        }
        List<Long> marks = new ArrayList<>();
        FileTokenHighWaterMark reader = new FileTokenHighWaterMark(real);
        while (children.stream().anyMatch(Process::isAlive) && marks.size() < 100_000) {
            marks.add(reader.read());
        }
        List<Long> ends = new ArrayList<>();
        for (Process child : children) {
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();
            out.lines().map(Long::parseLong).forEach(ends::add);
        }
        assertBlocksDisjoint(ends, block, 200);
        for (int i = 1; i < marks.size(); i++) {
            assertThat(marks.get(i)).as("read %d after %d", i, marks.get(i - 1)).isGreaterThanOrEqualTo(marks.get(i - 1));
        }
        assertThat(reader.read()).isEqualTo(200 * block);
        assertThat(Files.isSymbolicLink(link)).isTrue();
    }

    /** Each raise answered its block's end; blocks (end - block, end] must tile without overlap. */
    private static void assertBlocksDisjoint(List<Long> ends, long block, int count) {
        assertThat(ends).hasSize(count).doesNotHaveDuplicates();
        List<Long> sorted = new ArrayList<>(ends);
        Collections.sort(sorted);
        for (int i = 0; i < sorted.size(); i++) {
            assertThat(sorted.get(i)).isEqualTo((i + 1) * block);
        }
    }
}
