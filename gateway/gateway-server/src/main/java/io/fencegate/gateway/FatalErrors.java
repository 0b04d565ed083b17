package io.fencegate.gateway;

import io.vertx.core.Vertx;

/**
 * A gateway that ran out of memory, or lost a thread to an {@link Error}, stops: one clear line on
 * standard error and exit code {@value #EXIT_CODE}, so systemd or Kubernetes restarts it. A
 * half-alive gateway (an event loop gone, a database its store closed after an
 * {@link OutOfMemoryError}) answers 503 for ever and restarts nothing. The launchers also pass
 * {@code -XX:+ExitOnOutOfMemoryError}, which covers an allocation failure that no handler sees.
 */
public final class FatalErrors {
    /** The exit code of a fatal error (2 is a refused start). */
    public static final int EXIT_CODE = 3;

    private FatalErrors() {}

    /** Every thread's uncaught {@link VirtualMachineError}, and every one a Vert.x handler throws, stops the process. */
    public static void install(Vertx vertx) {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, t) -> {
            if (isFatal(t)) {
                die(thread.getName(), t);
            } else if (previous != null) {
                previous.uncaughtException(thread, t);
            } else {
                System.err.println("fencegate: uncaught in thread " + thread.getName() + ": " + t);
            }
        });
        vertx.exceptionHandler(t -> {
            if (isFatal(t)) {
                die(Thread.currentThread().getName(), t);
            }
        });
    }

    /** Whether {@code t}, or a cause of it, is one the JVM may not recover from (out of memory, stack overflow, internal error). */
    public static boolean isFatal(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof VirtualMachineError) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    /** Stops the process now; no shutdown hooks (they could hang, or allocate, in a broken JVM). */
    public static void die(String where, Throwable t) {
        try {
            System.err.println("fencegate: fatal " + t.getClass().getSimpleName() + " in " + where + ": " + t.getMessage()
                    + "; stopping (exit " + EXIT_CODE + ") to be restarted");
            System.err.flush();
        } finally {
            Runtime.getRuntime().halt(EXIT_CODE);
        }
    }
}
