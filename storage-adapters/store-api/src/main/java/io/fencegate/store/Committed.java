package io.fencegate.store;

import java.util.List;

/**
 * Every item of the transaction passed its guard, and all its writes and deletes committed together.
 *
 * @param applied one {@link Applied} per operation, in the order the operations were given
 */
public record Committed(List<Applied> applied) implements TransactionResult {

    public Committed {
        applied = List.copyOf(applied);
    }
}
