package io.fencegate.gateway.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Every problem found in one config, so that a user fixes them in one pass instead of one per
 * start. {@link #throwIfAny()} reports them together.
 */
final class ConfigProblems {
    private final List<ConfigException> found = new ArrayList<>();

    void add(ConfigException problem) {
        found.add(problem);
    }

    boolean isEmpty() {
        return found.isEmpty();
    }

    /** Runs {@code check}; a {@link ConfigException} it throws is recorded, not thrown. */
    void check(Runnable check) {
        try {
            check.run();
        } catch (ConfigException e) {
            add(e);
        }
    }

    /** One problem: itself; several: one exception whose message lists each on its own line. */
    void throwIfAny() {
        if (found.size() == 1) {
            throw found.get(0);
        }
        if (!found.isEmpty()) {
            StringBuilder message = new StringBuilder(found.size() + " problems in the config:");
            found.forEach(p -> message.append("\n  ").append(p.getMessage()));
            ConfigException all = new ConfigException(message.toString(), (Throwable) null);
            found.forEach(all::addSuppressed);
            throw all;
        }
    }
}
