package io.fencegate.issuer.backend;

import java.util.concurrent.ThreadFactory;

/** Named daemon threads for an issuer's timers and helpers. */
public final class DaemonThreads {

    private DaemonThreads() { }

    /**
     * Threads named {@code name}, daemon because an issuer's timers (expiries, operation timeouts,
     * renewals) must never keep a JVM alive whose application forgot to close the issuer.
     */
    public static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
