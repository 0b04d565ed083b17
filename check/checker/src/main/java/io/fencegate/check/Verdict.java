package io.fencegate.check;

import java.util.List;

/** What the checker found: the violations, and how many overlaps a lease-ending fault excused. */
public record Verdict(Workload workload, List<Violation> violations, int excusedOverlaps) {

    public boolean valid() {
        return violations.isEmpty();
    }
}
