package io.fencegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.ChildProcess;
import io.vertx.core.Vertx;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@link OutOfMemoryError} on an event loop, or on any other thread, stops the process with
 * one line and exit code 3 instead of leaving a half-alive gateway: each case in a JVM of its own
 * ({@link #main}), as the gateway installs it.
 */
@Timeout(90)
class FatalErrorsIT {

    @Test
    void anOutOfMemoryErrorOnAnEventLoopStopsTheProcessWithExitCode3() throws Exception {
        assertStops("event-loop");
    }

    @Test
    void anOutOfMemoryErrorOnAnyOtherThreadStopsTheProcessWithExitCode3() throws Exception {
        assertStops("thread");
    }

    private static void assertStops(String where) throws Exception {
        try (ChildProcess child = ChildProcess.java("fatal-" + where, FatalErrorsIT.class.getName(),
                List.of("-Xmx64m"), List.of(where)).start()) {
            assertThat(child.await(60)).as("exit code\n%s", child.output()).isEqualTo(FatalErrors.EXIT_CODE);
            assertThat(child.output()).contains("fencegate: fatal OutOfMemoryError in ")
                    .contains("stopping (exit 3) to be restarted")
                    .doesNotContain("still alive");
        }
    }

    /** Installs the handlers, throws an {@link OutOfMemoryError} where {@code args[0]} says, and would then live on. */
    public static void main(String[] args) throws Exception {
        Vertx vertx = Vertx.vertx();
        FatalErrors.install(vertx);
        if (args[0].equals("event-loop")) {
            vertx.runOnContext(v -> {
                throw new OutOfMemoryError("Java heap space (thrown by the test)");
            });
        } else {
            new Thread(() -> {
                throw new OutOfMemoryError("Java heap space (thrown by the test)");
            }, "worker").start();
        }
        Thread.sleep(20_000);
        System.out.println("still alive");
        System.exit(0);
    }
}
