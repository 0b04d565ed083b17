package io.fencegate.store.files;

import io.fencegate.store.GuardRule;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hand-run probe, not part of the build: guarded writes through {@link FilesGuardedStore} next to
 * the same crash-atomic replace without the guard (no lock, no read of the current token), same
 * run, 1 and 4 writers. Both fsync the file and the directory. Asserts nothing about time.
 *
 * <pre>mvn -B -q -o -pl storage-adapters/store-files verify -Dtest=FilesWriteRateProbe -Dsurefire.failIfNoSpecifiedTests=false
 * cat storage-adapters/store-files/target/surefire-reports/io.fencegate.store.files.FilesWriteRateProbe-output.txt</pre>
 */
@Timeout(120)
class FilesWriteRateProbe {
    private static final long MILLIS = 3000;

    @Test
    void guardedVersusPlainReplaceRate() throws Exception {
        try (TempRoot root = new TempRoot("files-probe");
                FilesGuardedStore store = FilesGuardedStore.open(new FilesStoreOptions().root(root.path).threads(4))) {
            byte[] value = new byte[100];
            for (int writers : new int[] {1, 4}) {
                double guarded = rate(writers, (w, t) -> store.write("g/" + w + "/" + (t % 100), t, value)
                        .toCompletableFuture().join());
                double plain = rate(writers, (w, t) -> AtomicFiles.replace(root.path,
                        KeyPaths.itemFile(root.path, "p/" + w + "/" + (t % 100)), new ItemFile("p", t, t, value).encode()));
                System.out.printf("files, %d writers: guarded %.0f writes/s, plain atomic replace %.0f/s (ratio %.2f)%n",
                        writers, guarded, plain, guarded / plain);
            }
        }
    }

    interface Write {
        void run(int writer, long token) throws Exception;
    }

    private static double rate(int writers, Write write) throws Exception {
        AtomicLong done = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MILLIS);
        CompletableFuture<?>[] all = new CompletableFuture<?>[writers];
        for (int w = 0; w < writers; w++) {
            int writer = w;
            all[w] = CompletableFuture.runAsync(() -> {
                try {
                    for (long t = 1; System.nanoTime() < end; t++) {
                        write.run(writer, t);
                        done.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        CompletableFuture.allOf(all).get(60, TimeUnit.SECONDS);
        return done.get() * 1000.0 / MILLIS;
    }
}
