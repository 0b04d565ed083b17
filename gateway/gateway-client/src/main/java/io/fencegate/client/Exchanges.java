package io.fencegate.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How the client's HTTP exchanges run: each one is a blocking {@link HttpClient#send} on one of the
 * client's own threads, and its future completes on that thread.
 *
 * <p>Why not {@link HttpClient#sendAsync}: the JDK completes every {@code sendAsync} future through
 * {@code CompletableFuture}'s default executor, and where the common pool has fewer than two threads
 * (one or two CPUs) that executor starts a new thread for each task: one thread created and torn
 * down per request. Measured on 2 cores at 16 in flight: 200–390 µs of client CPU a request with
 * {@code sendAsync}, 70–125 µs this way, 25–50 µs for a pooled Vert.x client (docs/gateway.md,
 * "Performance"). {@code send} completes on the thread that waits, with no such hand-off.
 *
 * <p>Why a direct executor in the client's own {@link HttpClient}: the request is then written on
 * the sending thread and the answer read on the client's selector thread, without the further hops
 * through the JDK's default executor. Nothing of the caller's runs on the selector thread: the
 * futures complete on {@link #THREADS}, which grows as calls block (like the JDK's default
 * executor), so a dependent stage may block, even on another call of the same client.
 */
final class Exchanges {
    /** One thread per exchange in flight, made on demand; daemon, and gone after a minute idle. */
    private static final Executor THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "fencegate-client");
                t.setDaemon(true);
                return t;
            });

    private final HttpClient http;

    private Exchanges(HttpClient http) {
        this.http = http;
    }

    /**
     * The client's own: HTTP/1.1 (JDK 17's client fails requests in flight when an HTTP/2 server
     * sends GOAWAY, as a gateway draining for shutdown does; with 1.1 they complete), with a direct
     * executor.
     */
    static Exchanges own(Duration connectTimeout) {
        Executor direct = Runnable::run;
        return new Exchanges(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout).executor(direct).build());
    }

    /** A client the user built (its executor, proxy, TLS settings), used as it is. */
    static Exchanges using(HttpClient http) {
        return new Exchanges(http);
    }

    /**
     * Sends {@code request} on one of {@link #THREADS}; the future completes there, with the
     * response or (wrapped in a {@link CompletionException}) the {@link IOException} that ended it.
     */
    CompletableFuture<HttpResponse<byte[]>> send(HttpRequest request) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return http.send(request, BodyHandlers.ofByteArray());
            } catch (IOException e) {
                throw new CompletionException(e);
            } catch (InterruptedException e) {
                // Only a pool thread can be interrupted here, and nothing of ours interrupts them.
                Thread.currentThread().interrupt();
                throw new CompletionException(new InterruptedIOException("interrupted while waiting for the gateway"));
            }
        }, THREADS);
    }
}
