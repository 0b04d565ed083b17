package io.fencegate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ChildProcessTest {

    @Test
    void linesAreMatchedInOrderOnceAndTheExitCodeComesAfterTheLastLine() throws Exception {
        try (ChildProcess p = ChildProcess.command("sh", List.of("sh", "-c", "echo one 1; echo two 2; echo one 3; exit 7")).start()) {
            Pattern one = Pattern.compile("one (\\d)");
            assertThat(p.awaitLine(one, 20).group(1)).isEqualTo("1");
            assertThat(p.awaitLine(one, 20).group(1)).as("the next match, not the first again").isEqualTo("3");
            assertThat(p.await(20)).isEqualTo(7);
            assertThat(p.output()).isEqualTo("one 1\ntwo 2\none 3");
        }
    }

    @Test
    void awaitLineFailsWithTheOutputWhenTheProcessExitsFirst() throws Exception {
        try (ChildProcess p = ChildProcess.command("sh", List.of("sh", "-c", "echo starting; exit 3")).start()) {
            assertThatThrownBy(() -> p.awaitLine(Pattern.compile("ready"), 20))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("exited with 3").hasMessageContaining("starting");
        }
    }

    @Test
    void aStoppedProcessPrintsNothingUntilContinuedAndKill9EndsIt() throws Exception {
        try (ChildProcess p = ChildProcess.command("ticker", List.of("sh", "-c", "while true; do echo tick; sleep 0.05; done"))
                .start()) {
            p.awaitLine(Pattern.compile("tick"), 20);
            p.stop();
            Thread.sleep(300); // let a line already in the pipe arrive
            int frozen = p.lines().size();
            Thread.sleep(500);
            assertThat(p.lines()).as("stopped: no new lines").hasSize(frozen);
            p.cont();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (p.lines().size() == frozen && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(p.lines().size()).as("continued: it prints again").isGreaterThan(frozen);
            p.kill9();
            assertThat(p.alive()).isFalse();
        }
    }

    @Test
    void aLoggedProcessWritesItsLogAndRestartsAppendingToIt(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("logs/child.log");
        try (ChildProcess p = ChildProcess.command("echo", List.of("sh", "-c", "echo hello")).logTo(log).start()) {
            assertThat(p.await(20)).isZero();
            p.startAgain();
            assertThat(p.await(20)).isZero();
            assertThat(Files.readAllLines(log)).containsExactly("hello", "hello");
            assertThat(p.tail()).contains("hello").contains(log.toString());
        }
    }

    @Test
    void runAnswersTheOutputOrFailsWithIt() throws Exception {
        assertThat(ChildProcess.run(20, List.of("sh", "-c", "echo fine"))).isEqualTo("fine\n");
        assertThatThrownBy(() -> ChildProcess.run(20, List.of("sh", "-c", "echo broken; exit 2")))
                .hasMessageContaining("exited with 2").hasMessageContaining("broken");
    }
}
