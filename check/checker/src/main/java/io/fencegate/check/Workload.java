package io.fencegate.check;

import java.util.Locale;

/** What the clients do; each has its own checker. */
public enum Workload {
    /** lease, fenced read, think or pause, write n+1, release. */
    COUNTER,
    /** Jepsen's lock-set: lease, fenced read of a set, pause, write the set plus this client's element. */
    LOCK_SET,
    /** lease, hold, release: the grant history against a mutex with fences. */
    MUTEX;

    public static Workload parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "counter" -> COUNTER;
            case "lock-set", "lockset", "set" -> LOCK_SET;
            case "mutex", "fenced-mutex" -> MUTEX;
            default -> throw new IllegalArgumentException("--workload: expected counter, lock-set or mutex, got '" + s + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
