package io.fencegate.check;

import java.util.Map;

/** What the clients do; each has its own checker. */
public enum Workload {
    /** lease, fenced read, think or pause, write n+1, release. */
    COUNTER,
    /** Jepsen's lock-set: lease, fenced read of a set, pause, write the set plus this client's element. */
    LOCK_SET,
    /** lease, hold, release: the grant history against a mutex with fences. */
    MUTEX;

    public static Workload parse(String s) {
        return OptionEnums.parse(Workload.class, "--workload", s, Map.of("lockset", LOCK_SET, "set", LOCK_SET, "fenced-mutex", MUTEX));
    }

    public String label() {
        return OptionEnums.label(this);
    }
}
