package io.fencegate.gateway.mutants;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.WriteResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Mutant "answer before commit": a write is answered applied (over the item's current token, read
 * plainly) at once, and handed to the real store {@value #COMMIT_DELAY_MS} ms later. By then the
 * holder has released and the next one may have read and fenced the item: the late write is then
 * refused, and what was acknowledged is gone.
 */
final class AnswerBeforeCommitStore extends ForwardingGuardedStore {
    static final long COMMIT_DELAY_MS = 100;
    private static final Executor LATER = CompletableFuture.delayedExecutor(COMMIT_DELAY_MS, TimeUnit.MILLISECONDS);

    AnswerBeforeCommitStore(GuardedStore real) {
        super(real);
    }

    @Override
    public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
        return real.read(key).thenApply(current -> {
            LATER.execute(() -> real.write(key, token, value)); // its answer is never looked at
            return new Applied(current instanceof Found f ? f.token() : current instanceof Missing m ? m.token() : 0);
        });
    }
}
