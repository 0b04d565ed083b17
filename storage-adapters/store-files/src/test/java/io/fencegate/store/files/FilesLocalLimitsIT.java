package io.fencegate.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the file system bounds: the longest key a path can hold, and temporaries a dead writer left. */
@Timeout(60)
class FilesLocalLimitsIT {

    /** A key at the store's limit with every byte percent-encoded (segments under the hashing length) is written, not "file name too long". */
    @Test
    void theKeyLimitIsOneEveryPathBelowTheRootCanHold() throws Exception {
        try (TempRoot root = new TempRoot("key-limit");
             FilesGuardedStore store = FilesGuardedStore.open(root.path, GuardRule.STRICT)) {
            int limit = store.limits().maxKeyBytes();
            assertThat(limit).as("under the path limit, a third of it").isLessThan(4096 / 3);
            StringBuilder key = new StringBuilder();
            while (key.toString().getBytes(StandardCharsets.UTF_8).length + 61 <= limit) {
                key.append("~".repeat(60)).append('/'); // 60 bytes, each encoded as %7E: 180 characters a name
            }
            key.append("~".repeat(limit - key.toString().getBytes(StandardCharsets.UTF_8).length));
            assertThat(key.toString().getBytes(StandardCharsets.UTF_8)).hasSize(limit);
            assertThat(store.write(key.toString(), 1, new byte[] {1}).toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(Applied.class);
            assertThatThrownBy(() -> store.write(key + "~", 2, new byte[] {1}).toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A temporary of a writer that died (kill -9 mid-write) is removed when the store next opens, however fresh; a live one's is kept. */
    @Test
    void aDeadWritersFreshTemporaryIsRemovedAtOpenAndALiveOnesKept() throws Exception {
        try (TempRoot root = new TempRoot("dead-writer")) {
            Path live = AtomicFiles.newTemporary(root.path, root.path.resolve("item.fgi"));
            Files.write(live, new byte[] {1});
            Process gone = new ProcessBuilder("true").start();
            gone.waitFor(20, TimeUnit.SECONDS);
            long me = ProcessHandle.current().pid();
            String name = live.getFileName().toString();
            Path dead = root.path.resolve(name.replaceFirst("-" + me + "-[0-9a-f]+-", "-" + gone.pid() + "-1-"));
            assertThat(dead).isNotEqualTo(live);
            Files.write(dead, new byte[] {1});

            try (FilesGuardedStore store = FilesGuardedStore.open(root.path, GuardRule.STRICT)) {
                assertThat(dead).as("the dead writer's temporary").doesNotExist();
                assertThat(live).as("this live process's temporary").exists();
            }
        }
    }
}
