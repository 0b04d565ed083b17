package io.fencegate.store.files;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kill -9 at random moments never separates content from token: a child JVM writes in a loop
 * ({@link CrashWriter}) and is killed with SIGKILL 100 times; after every kill each item's value
 * names its own token, the token never went down, and token <= fence.
 */
class FilesCrashIT {
    private static final int KILLS = 100;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void contentAndTokenSurviveSigkillTogether() throws Exception {
        try (TempRoot root = new TempRoot("files-crash")) {
            Map<String, Long> lastSeen = new HashMap<>();
            long nextToken = 1;
            int killedWhileWriting = 0;
            for (int kill = 0; kill < KILLS; kill++) {
                Process child = start(root.path, nextToken);
                try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    assertThat(out.readLine()).as("child started").isEqualTo("ready");
                    Thread.sleep(ThreadLocalRandom.current().nextInt(5, 120));
                    child.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no flush
                    assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
                    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(137);
                    killedWhileWriting++;
                }
                nextToken = check(root.path, lastSeen) + 1;
            }
            assertThat(killedWhileWriting).isEqualTo(KILLS);
            assertThat(lastSeen.values()).as("the children made progress").anyMatch(t -> t > 10);
        }
    }

    /** Checks every item after a kill; answers the highest fence seen. */
    private static long check(Path root, Map<String, Long> lastSeen) {
        long highest = 0;
        try (FilesGuardedStore store = FilesGuardedStore.open(root, GuardRule.STRICT)) {
            for (String key : List.of("k0", "k1", "k2")) {
                ReadResult r = await(store.read(key));
                if (r instanceof Missing m) {
                    assertThat(m.token()).as(key + " never written").isZero();
                    continue;
                }
                Found f = (Found) r;
                String head = new String(f.value(), 0, Math.min(40, f.value().length), StandardCharsets.US_ASCII);
                assertThat(head).as(key + ": content belongs to its token").startsWith("written-with-" + f.token() + ":");
                assertThat(f.value()).as(key + ": whole value").isEqualTo(CrashWriter.valueFor(f.token(),
                        f.value().length - ("written-with-" + f.token() + ":").length()));
                assertThat(f.token()).isLessThanOrEqualTo(f.fence());
                assertThat(f.token()).as(key + ": token never goes back").isGreaterThanOrEqualTo(lastSeen.getOrDefault(key, 0L));
                lastSeen.put(key, f.token());
                highest = Math.max(highest, f.fence());
            }
        }
        return highest;
    }

    private static Process start(Path root, long firstToken) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), CrashWriter.class.getName(),
                root.toString(), Long.toString(firstToken))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }
}
