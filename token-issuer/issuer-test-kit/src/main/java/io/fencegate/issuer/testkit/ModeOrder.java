package io.fencegate.issuer.testkit;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What read and write holders of one lock saw, checked as they go: a write lease granted while
 * any other lease is in, or a read lease while a write lease is in, is a violation; so is a token
 * not above every token granted before it that it must follow (a writer follows every grant it
 * excluded; a reader follows every writer). Holders call {@link #granted} as soon as they have a
 * lease and {@link #releasing} before they give it back, so every grant that ended before this one
 * began is already recorded.
 */
public final class ModeOrder {
    private int readers;
    private boolean writer;
    private long highestToken;
    private long highestWriteToken;
    private int grants;
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

    public synchronized void granted(Lease lease) {
        grants++;
        if (lease.mode() == LeaseMode.WRITE) {
            if (writer || readers > 0) {
                violations.add("write lease " + lease.token() + " granted while " + (writer ? "a writer" : readers + " readers") + " held");
            }
            if (lease.token() <= highestToken) {
                violations.add("write token " + lease.token() + " not above an earlier grant's " + highestToken);
            }
            writer = true;
            highestWriteToken = lease.token();
        } else {
            if (writer) {
                violations.add("read lease " + lease.token() + " granted while a writer held");
            }
            if (lease.token() <= highestWriteToken) {
                violations.add("read token " + lease.token() + " not above the last writer's " + highestWriteToken);
            }
            readers++;
        }
        highestToken = Math.max(highestToken, lease.token());
    }

    public synchronized void releasing(Lease lease) {
        if (lease.mode() == LeaseMode.WRITE) {
            writer = false;
        } else {
            readers--;
        }
    }

    public void violation(String what) {
        violations.add(what);
    }

    public List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    public synchronized int grants() {
        return grants;
    }
}
