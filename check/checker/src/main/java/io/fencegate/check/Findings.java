package io.fencegate.check;

import java.util.ArrayList;
import java.util.List;

/**
 * What judging a history finds, key by key: the violations, the overlaps of leases a lease-ending
 * fault excused, and what could not be decided for lack of data (no final read of an item).
 */
public final class Findings {
    final List<Violation> violations = new ArrayList<>();
    final List<String> undecided = new ArrayList<>();
    int excused;

    public void violation(Violation v) {
        violations.add(v);
    }

    public void excused() {
        excused++;
    }

    /** A property that could not be judged: the run proves little about it. */
    public void undecided(String what) {
        undecided.add(what);
    }
}
