package io.fencegate.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Jepsen's lock-set: each client adds its own element to a set; every acknowledged element is in the final set. */
final class LockSetWorkload extends ReadModifyWrite {
    /** A lock-set item is replaced by a fresh one this often, so its value stays small in long runs. */
    static final long SET_ROTATION_US = 60_000_000L;

    @Override
    public String label() {
        return "lock-set";
    }

    @Override
    String itemKey(ClientLoop client) {
        return super.itemKey(client) + "-g" + Clock.nowUs() / SET_ROTATION_US;
    }

    @Override
    Next next(ClientLoop client, String current) {
        String element = "c" + client.id() + "-" + client.nextSequence();
        Set<String> set = elements(current);
        set.add(element);
        return new Next(String.join(",", set), element);
    }

    /** Every acknowledged add is in the final set. */
    @Override
    void checkItem(String key, List<Op> ops, Findings out) {
        Op last = Checker.finalRead(ops);
        if (last == null) {
            Checker.noFinalRead(key, ops.stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK).count(), out);
            return;
        }
        Set<String> present = last.value() == null ? Set.of() : new HashSet<>(Arrays.asList(last.value().split(",")));
        for (Op op : ops) {
            if (op.is(Op.WRITE) && op.outcome() == Outcome.OK && !present.contains(op.value())) {
                out.violation(new Violation(Violation.LOST_ADD, key, op.completeUs(),
                        "element " + op.value() + " acknowledged (token " + op.token() + ") but missing at the end"));
            }
        }
    }

    /** A set only grows: a value read shows every add acknowledged before it was sent. */
    @Override
    Shown shown() {
        return new Shown() {
            private final List<Op> added = new ArrayList<>();

            @Override
            public void add(Op write) {
                added.add(write);
            }

            @Override
            public Op missingFrom(String value) {
                Set<String> present = elements(value);
                for (Op w : added) {
                    if (!present.contains(w.value())) {
                        return w;
                    }
                }
                return null;
            }
        };
    }

    /** The elements of a lock-set value, in order. */
    static Set<String> elements(String value) {
        return value == null || value.isEmpty() ? new LinkedHashSet<>() : new LinkedHashSet<>(Arrays.asList(value.split(",")));
    }
}
