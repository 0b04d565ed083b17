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

    /** The final value equals the acknowledged increments, and no two acknowledgements wrote one value. */
    @Override
    void checkItem(String key, List<Op> ops, List<Violation> out) {
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
                    out.add(new Violation(Violation.DUPLICATE_VALUE, key, op.completeUs(),
                            "value " + op.value() + " acknowledged twice: token " + earlier.token()
                                    + " (client " + earlier.client() + ") and token " + op.token() + " (client " + op.client() + ")"));
                }
            } else if (op.outcome() == Outcome.UNKNOWN) {
                unknown++;
            }
        }
        Op last = Checker.finalRead(ops);
        if (last == null) {
            return;
        }
        long value = last.value() == null ? 0 : Long.parseLong(last.value().trim());
        if (value < acked) {
            out.add(new Violation(Violation.LOST_UPDATE, key, last.completeUs(),
                    "final value " + value + " but " + acked + " increments were acknowledged: "
                            + (acked - value) + " lost"));
        } else if (value > acked + unknown) {
            out.add(new Violation(Violation.LOST_UPDATE, key, last.completeUs(),
                    "final value " + value + " exceeds the " + acked + " acknowledged and " + unknown
                            + " unknown increments"));
        }
    }
}
