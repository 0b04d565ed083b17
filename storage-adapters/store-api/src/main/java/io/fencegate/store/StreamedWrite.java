package io.fencegate.store;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A guarded write whose value arrives in pieces, from {@link GuardedStore#openWrite}: a store that
 * supports it takes the bytes as they come (the files store into a temporary file beside the item)
 * instead of a whole value in memory. The guard is judged at {@link #commit}, exactly as
 * {@link GuardedStore#write} judges it, and the value becomes visible only if it applies. Until
 * then nothing changes, and {@link #abort} (or a refused or failed commit) leaves nothing behind.
 *
 * <p>Calls are sequential: the next {@link #append} or {@link #commit} only once the previous
 * stage has completed. {@link #abort} may be called at any time, from any thread.
 */
public interface StreamedWrite {

    /**
     * Appends {@code bytes} to the value, in order. The buffers are read before the stage completes
     * and not kept. Growing past the store's {@link StoreLimits#maxValueBytes} fails the stage with
     * {@link IllegalArgumentException}; the write is then aborted.
     */
    CompletionStage<Void> append(List<ByteBuffer> bytes);

    /** Ends the value and applies it if the store's rule admits the token now: {@link Applied} or {@link Stale}. */
    CompletionStage<WriteResult> commit();

    /** Drops what was received and changes nothing; idempotent, and no effect once a commit has started. */
    void abort();
}
