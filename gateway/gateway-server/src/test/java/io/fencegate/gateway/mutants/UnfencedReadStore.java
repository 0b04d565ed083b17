package io.fencegate.gateway.mutants;

import io.fencegate.store.Found;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import java.util.concurrent.CompletionStage;

/**
 * Mutant "skip raising the fence": a fenced read still refuses a token below the item's fence, but
 * claims nothing: it is a plain read, so a lower token can write after it (DESIGN.md, "Why reads
 * must be fenced too").
 */
final class UnfencedReadStore extends ForwardingGuardedStore {

    UnfencedReadStore(GuardedStore real) {
        super(real);
    }

    @Override
    public CompletionStage<ReadResult> fencedRead(String key, long token) {
        return real.read(key).thenApply(r -> {
            long current = r instanceof Found f ? f.token() : r instanceof Missing m ? m.token() : 0;
            long fence = r instanceof Found f ? f.fence() : r instanceof Missing m ? m.fence() : 0;
            return fence > token ? new Stale(current, fence, token) : r;
        });
    }
}
