package io.fencegate.check.nemesis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A wall clock the harness steps, for one gateway: Debian's libfaketime preloaded into its JVM,
 * reading its offset from a control file. Only the wall clock moves ({@code DONT_FAKE_MONOTONIC}):
 * {@code System.currentTimeMillis()} jumps, {@code System.nanoTime()} does not, which is what an
 * NTP step does to a real host. The file is read again at most once a second
 * ({@code FAKETIME_CACHE_DURATION=1}); {@code FAKETIME_NO_CACHE} would read it on every clock call
 * (15 µs a {@code currentTimeMillis()} here, against 0.05 µs).
 *
 * <p>{@code FAKETIME_FORCE_MONOTONIC_FIX=0} is needed with a JVM: with the fix on (the default
 * here), every timed {@code pthread_cond_timedwait} returns at once while the monotonic clock is
 * not faked, so {@code LockSupport.parkNanos} and {@code Object.wait(ms)} spin, and the gateway
 * took 48 s to start and then timed out connecting to its store. {@code NO_FAKE_STAT=1} leaves file
 * times alone: only the clock moves.
 */
final class SteppedClock {
    /** How long after a write the stepped process surely reads it (the cache duration, and a margin). */
    static final long PICKED_UP_MS = 1_500;

    private final Path control;
    private final Path library;

    private SteppedClock(Path control, Path library) {
        this.control = control;
        this.library = library;
    }

    static SteppedClock create(Path control) throws IOException {
        SteppedClock c = new SteppedClock(control, library());
        c.offset(0);
        return c;
    }

    /** Debian's {@code faketime} package puts it under {@code /usr/lib/<arch>/faketime/}. */
    private static Path library() throws IOException {
        try (Stream<Path> arches = Files.list(Path.of("/usr/lib"))) {
            return arches.map(a -> a.resolve("faketime").resolve("libfaketime.so.1")).filter(Files::isRegularFile).findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "libfaketime not found (/usr/lib/*/faketime/libfaketime.so.1): apt-get install faketime"));
        }
    }

    /** The environment of the process whose clock this steps. */
    Map<String, String> environment() {
        return Map.of("LD_PRELOAD", library.toString(), "FAKETIME_TIMESTAMP_FILE", control.toString(),
                "FAKETIME_CACHE_DURATION", "1", "DONT_FAKE_MONOTONIC", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_FORCE_MONOTONIC_FIX", "0",
                "NO_FAKE_STAT", "1");
    }

    /** Sets the wall clock {@code seconds} off the true time (negative: behind); 0 puts it right. */
    void offset(long seconds) throws IOException {
        Path tmp = control.resolveSibling(control.getFileName() + ".tmp");
        Files.writeString(tmp, (seconds < 0 ? "" : "+") + seconds + "\n");
        Files.move(tmp, control, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
