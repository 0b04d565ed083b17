package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** What the holders of one lock see, checked as they go: never two at once, tokens strictly increasing in grant order. */
final class ExclusionCheck {

    private final AtomicInteger holders = new AtomicInteger();
    private final List<Long> tokens = new ArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    /** A holder got {@code lease}; call {@link #letGo()} before releasing it. */
    void holds(Lease lease) {
        if (holders.incrementAndGet() != 1) {
            violations.add("two live holders, token " + lease.token());
        }
        synchronized (tokens) {
            if (!tokens.isEmpty() && tokens.get(tokens.size() - 1) >= lease.token()) {
                violations.add("token " + lease.token() + " after " + tokens.get(tokens.size() - 1));
            }
            tokens.add(lease.token());
        }
    }

    void letGo() {
        holders.decrementAndGet();
    }

    void violation(String what) {
        violations.add(what);
    }

    List<String> violations() {
        return violations;
    }

    /** Every token granted so far, in grant order. */
    List<Long> tokens() {
        synchronized (tokens) {
            return List.copyOf(tokens);
        }
    }
}
