package io.fencegate.store;

import java.util.List;

/**
 * Every item of the multi-read admitted its token: all their fences were raised together.
 *
 * @param items one {@link Found} or {@link Missing} per claim, in the order the claims were given,
 *              each reporting the fence the read raised
 */
public record Claimed(List<ReadResult> items) implements ClaimResult {

    public Claimed {
        items = List.copyOf(items);
    }
}
