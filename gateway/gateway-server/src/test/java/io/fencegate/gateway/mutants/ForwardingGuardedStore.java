package io.fencegate.gateway.mutants;

import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ReadResult;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.WriteResult;
import java.util.concurrent.CompletionStage;

/**
 * A store that hands every call to a real one. Unmutated, it is the control; a mutant overrides the
 * one call whose guarantee it switches off. It never streams values, so the gateway sends every
 * PUT through {@link #write}, in the control and in the mutant alike.
 */
class ForwardingGuardedStore implements GuardedStore {
    protected final GuardedStore real;

    ForwardingGuardedStore(GuardedStore real) {
        this.real = real;
    }

    @Override
    public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
        return real.write(key, token, value);
    }

    @Override
    public CompletionStage<WriteResult> delete(String key, long token) {
        return real.delete(key, token);
    }

    @Override
    public CompletionStage<ReadResult> read(String key) {
        return real.read(key);
    }

    @Override
    public CompletionStage<ReadResult> fencedRead(String key, long token) {
        return real.fencedRead(key, token);
    }

    @Override
    public GuardRule rule() {
        return real.rule();
    }

    @Override
    public StoreLimits limits() {
        return real.limits();
    }

    /** The real store belongs to the deployment, which closes it. */
    @Override
    public void close() {}
}
