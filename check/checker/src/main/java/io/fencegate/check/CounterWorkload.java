package io.fencegate.check;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The counter: each client increments an item; the final value counts exactly the acknowledged increments. */
final class CounterWorkload extends ReadModifyWrite {

    @Override
    public String label() {
        return "counter";
    }

    @Override
    Next next(ClientLoop client, String current) {
        String n = Long.toString(current == null ? 1 : Long.parseLong(current.trim()) + 1);
        return new Next(n, n);
    }

    /** A counter only grows: a value read shows every increment acknowledged before, if it is at least the highest. */
    @Override
    Shown shown() {
        return new Shown() {
            private Op highest;
            private long highestValue;

            @Override
            public void add(Op write) {
                long v = number(write.value());
                if (highest == null || v > highestValue) {
                    highest = write;
                    highestValue = v;
                }
            }

            @Override
            public Op missingFrom(String value) {
                return highest != null && number(value) < highestValue ? highest : null;
            }
        };
    }

    /** A counter's value; missing is 0. */
    static long number(String value) {
        return value == null || value.isBlank() ? 0 : Long.parseLong(value.trim());
    }

    /** The final value equals the acknowledged increments, and no two acknowledgements wrote one value. */
    @Override
    void checkItem(String key, List<Op> ops, Findings out) {
        Map<String, Op> byValue = new HashMap<>();
        long acked = 0;
        long unknown = 0;
        for (Op op : ops) {
            if (!op.is(Op.WRITE)) {
                continue;
            }
            if (op.outcome() == Outcome.OK) {
                acked++;
                Op earlier = byValue.putIfAbsent(op.value(), op);
                if (earlier != null) {
                    out.violation(new Violation(Violation.DUPLICATE_VALUE, key, op.completeUs(),
                            "value " + op.value() + " acknowledged twice: token " + earlier.token()
                                    + " (client " + earlier.client() + ") and token " + op.token() + " (client " + op.client() + ")"));
                }
            } else if (op.outcome() == Outcome.UNKNOWN) {
                unknown++;
            }
        }
        Op last = Checker.finalRead(ops);
        if (last == null) {
            Checker.noFinalRead(key, acked, out);
            return;
        }
        long value = number(last.value());
        if (value < acked) {
            out.violation(new Violation(Violation.LOST_UPDATE, key, last.completeUs(),
                    "final value " + value + " but " + acked + " increments were acknowledged: "
                            + (acked - value) + " lost"));
        } else if (value > acked + unknown) {
            out.violation(new Violation(Violation.LOST_UPDATE, key, last.completeUs(),
                    "final value " + value + " exceeds the " + acked + " acknowledged and " + unknown
                            + " unknown increments"));
        }
    }
}
