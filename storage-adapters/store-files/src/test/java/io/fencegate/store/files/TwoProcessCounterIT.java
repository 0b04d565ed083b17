package io.fencegate.store.files;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Writers in two processes over one directory: this JVM and a child each run
 * {@link CounterWorker} (fenced read, pause, write +1) on one counter; the final value equals the
 * number of writes both acknowledged, so no increment was lost across processes.
 */
class TwoProcessCounterIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void incrementsFromTwoProcessesAreNeverLost() throws Exception {
        try (TempRoot root = new TempRoot("files-two-proc"); TempRoot tokens = new TempRoot("files-tokens")) {
            Path tokenFile = tokens.path.resolve("tokens");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    CounterWorker.class.getName(), root.path.toString(), tokenFile.toString(), "300")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            CompletableFuture<Long> childAcks = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    return Long.parseLong(out.readLine().strip());
                } catch (Exception e) {
                    throw new IllegalStateException("child failed", e);
                }
            });
            long mine = CounterWorker.run(root.path, tokenFile, 300);
            long theirs = childAcks.get(90, TimeUnit.SECONDS);
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();

            try (FilesGuardedStore store = FilesGuardedStore.open(root.path, GuardRule.STRICT)) {
                Found counter = (Found) await(store.read(CounterWorker.KEY));
                long value = Long.parseLong(new String(counter.value(), StandardCharsets.UTF_8));
                assertThat(mine).isPositive();
                assertThat(theirs).isPositive();
                assertThat(value).as("counter vs acknowledged writes (%d here, %d in the child)", mine, theirs)
                        .isEqualTo(mine + theirs);
            }
        }
    }
}
