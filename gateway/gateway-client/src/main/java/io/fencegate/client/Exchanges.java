package io.fencegate.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Where the client's exchanges run. A blocking call runs its exchange on the caller's thread; an
 * asynchronous one on one of the client's own threads ({@link ClientThreads}), where its future completes.
 *
 * <p>Why own threads and not an event loop or {@code HttpClient.sendAsync}: a dependent stage may then
 * block, even on another call of the same client, without stalling the I/O that would answer it. And
 * the JDK completes every {@code sendAsync} future through {@code CompletableFuture}'s default
 * executor, which on one or two CPUs starts a thread per task: one thread created per request
 * (docs/PERFORMANCE.md, "Performance: where a request's time goes").
 */
final class Exchanges {
    private final Transport transport;

    Exchanges(Transport transport) {
        this.transport = transport;
    }

    /**
     * Runs {@code call} on one of the client's threads and reads its answer there; the future fails with
     * what {@code read} threw, or (wrapped in a {@link CompletionException}) the transport's {@link IOException}.
     */
    <T> CompletableFuture<T> async(HttpCall call, Function<HttpAnswer, T> read) {
        CompletableFuture<T> future = new CompletableFuture<>();
        ClientThreads.execute(() -> {
            try {
                future.complete(read.apply(transport.exchange(call)));
            } catch (Throwable e) { // as supplyAsync: the future fails with a CompletionException around it
                future.completeExceptionally(e instanceof CompletionException ? e : new CompletionException(e));
            }
        });
        return future;
    }

    /** Runs {@code call} on this thread; the transport's {@link IOException} comes as an {@link UncheckedIOException}. */
    <T> T blocking(HttpCall call, Function<HttpAnswer, T> read) {
        try {
            return read.apply(transport.exchange(call));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
