package io.fencegate.check;

import java.util.List;

/**
 * What the checker found: the violations, how many overlaps a lease-ending fault excused, and what
 * it could not decide (a property left unjudged for lack of data, such as an item without a final
 * read): a run without violations but with undecided properties proves little.
 */
public record Verdict(Workload workload, List<Violation> violations, int excusedOverlaps, List<String> undecided) {

    public Verdict {
        undecided = undecided == null ? List.of() : List.copyOf(undecided);
    }

    public Verdict(Workload workload, List<Violation> violations, int excusedOverlaps) {
        this(workload, violations, excusedOverlaps, List.of());
    }

    public boolean valid() {
        return violations.isEmpty();
    }
}
