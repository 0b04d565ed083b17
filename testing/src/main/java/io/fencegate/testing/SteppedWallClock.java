package io.fencegate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A wall clock a test steps, for the processes it starts: Debian's libfaketime preloaded, reading
 * its offset from a control file. Only the wall clock moves ({@code DONT_FAKE_MONOTONIC}), which is
 * what an NTP step does to a real host: {@code gettimeofday} and {@code CLOCK_REALTIME} jump,
 * {@code CLOCK_MONOTONIC} does not.
 *
 * <p>libfaketime cannot start in a process that allocates with jemalloc (redis-server): jemalloc
 * reads the clock while libfaketime initialises, and libfaketime gives up. Such a process gets
 * {@link #shimEnvironment()}: a small preload of this module's own ({@code stepped-clock.c},
 * compiled with the system's C compiler on first use) that moves the same wall clocks by the same
 * control file, within 5 ms of a step.
 *
 * <p>{@code FAKETIME_FORCE_MONOTONIC_FIX=0} is needed with a JVM: with the fix on, every timed
 * {@code pthread_cond_timedwait} returns at once while the monotonic clock is not faked, so parked
 * threads spin. {@code NO_FAKE_STAT=1} leaves file times alone: only the clock moves.
 */
public final class SteppedWallClock {

    /** When a process sees a new offset. */
    public enum PickUp {
        /** On its next clock call ({@code FAKETIME_NO_CACHE}): for servers whose step a test times exactly. */
        AT_ONCE,
        /**
         * Within a second ({@code FAKETIME_CACHE_DURATION=1}): for a JVM, which reads the clock so
         * often that reading the file every time costs 15 µs a {@code currentTimeMillis()}, against 0.05.
         */
        WITHIN_A_SECOND
    }

    /** How long after a step a {@link PickUp#WITHIN_A_SECOND} process surely reads it (the cache duration, and a margin). */
    public static final long PICKED_UP_MS = 1_500;

    private final Path control;
    private final PickUp pickUp;
    private final Path library;

    private SteppedWallClock(Path control, PickUp pickUp, Path library) {
        this.control = control;
        this.pickUp = pickUp;
        this.library = library;
    }

    /** A clock on the true time, its control file {@code control} (readable by every user: servers may run as another). */
    public static SteppedWallClock create(Path control, PickUp pickUp) throws IOException {
        SteppedWallClock clock = new SteppedWallClock(control, pickUp, library());
        clock.offset(0);
        return clock;
    }

    /** Debian's {@code faketime} package puts it under {@code /usr/lib/<arch>/faketime/}. */
    private static Path library() throws IOException {
        try (Stream<Path> arches = Files.list(Path.of("/usr/lib"))) {
            return arches.map(a -> a.resolve("faketime").resolve("libfaketime.so.1")).filter(Files::isRegularFile).findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "libfaketime not found (/usr/lib/*/faketime/libfaketime.so.1): apt-get install faketime"));
        }
    }

    /** The environment of a process whose clock this steps. */
    public Map<String, String> environment() {
        Map<String, String> env = new java.util.LinkedHashMap<>(Map.of("LD_PRELOAD", library.toString(),
                "FAKETIME_TIMESTAMP_FILE", control.toString(), "DONT_FAKE_MONOTONIC", "1",
                "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0", "NO_FAKE_STAT", "1"));
        if (pickUp == PickUp.AT_ONCE) {
            env.put("FAKETIME_NO_CACHE", "1");
        } else {
            env.put("FAKETIME_CACHE_DURATION", "1");
        }
        return Map.copyOf(env);
    }

    /**
     * The environment of a process whose clock this steps, for processes libfaketime cannot start
     * in (jemalloc's: redis-server): the shim, which sees a step within 5 ms whatever the pick-up.
     */
    public Map<String, String> shimEnvironment() throws IOException, InterruptedException {
        return Map.of("LD_PRELOAD", Shim.library().toString(), "STEPPED_CLOCK_FILE", control.toString());
    }

    /** The shim, compiled once per JVM into a folder of its own. */
    private static final class Shim {
        private static Path compiled;

        static synchronized Path library() throws IOException, InterruptedException {
            if (compiled != null) {
                return compiled;
            }
            Path dir = Files.createTempDirectory("fencegate-stepped-clock-");
            Path source = dir.resolve("stepped-clock.c");
            try (var in = SteppedWallClock.class.getResourceAsStream("stepped-clock.c")) {
                if (in == null) {
                    throw new IllegalStateException("stepped-clock.c is missing from the testing jar");
                }
                Files.copy(in, source);
            }
            Path library = dir.resolve("stepped-clock.so");
            Process cc;
            try {
                cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-O2", "-o", library.toString(), source.toString())
                        .redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new IllegalStateException("no C compiler to build the stepped-clock shim (apt-get install gcc): " + e, e);
            }
            String output = new String(cc.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!cc.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || cc.exitValue() != 0) {
                throw new IllegalStateException("could not compile the stepped-clock shim (apt-get install gcc): " + output);
            }
            dir.toFile().setReadable(true, false);
            dir.toFile().setExecutable(true, false);
            library.toFile().setReadable(true, false);
            compiled = library;
            return library;
        }
    }

    /** Sets the wall clock {@code seconds} off the true time (negative: behind); 0 puts it right. */
    public void offset(long seconds) throws IOException {
        write((seconds < 0 ? "" : "+") + seconds);
    }

    /** Sets the wall clock {@code millis} off the true time, to the millisecond (libfaketime and the shim read fractions). */
    public void offsetMillis(long millis) throws IOException {
        write(String.format(java.util.Locale.ROOT, "%+.3f", millis / 1000.0));
    }

    private void write(String offset) throws IOException {
        Path tmp = control.resolveSibling(control.getFileName() + ".tmp");
        Files.writeString(tmp, offset + "\n");
        tmp.toFile().setReadable(true, false);
        Files.move(tmp, control, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
