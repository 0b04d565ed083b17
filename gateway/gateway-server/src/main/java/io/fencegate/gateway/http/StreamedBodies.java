package io.fencegate.gateway.http;

import io.fencegate.store.GuardedStore;
import io.fencegate.store.StreamedWrite;
import io.fencegate.store.WriteResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.RoutingContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A PUT's body handed to a store that takes values in pieces ({@link GuardedStore#streamsValues()})
 * as it arrives, instead of read whole into the heap: at most about twice {@link #HIGH_WATER} bytes
 * of a body are in this JVM at once (above that the request is paused and TCP pushes back on the
 * sender), and that much is what it reserves of the heap's {@link BodyBudget}. Its declared length
 * (a chunked one, its limit) is reserved of the temporary-disk budget, so concurrent uploads cannot
 * fill the disk; and it has the {@link BodyDeadline}s of every body.
 *
 * <p>The store judges the guard when the whole body has been written ({@link StreamedWrite#commit}).
 * A body that grows past the limit (413), a client that goes away before the end, or a failed
 * store call abort the write, and the store keeps nothing of it. Each store call is bounded by the
 * request timeout. Bodies under 1 MiB are not streamed ({@link #worthIt}).
 */
final class StreamedBodies {
    /** Bytes received and not yet handed to the store, above which the request is paused. */
    static final int HIGH_WATER = 512 * 1024;
    /**
     * Bodies declared smaller than this are read whole, as before: they never wait for the budget,
     * and one store call costs less than the two or three of a streamed write.
     */
    static final long STREAM_FROM = BodyBudget.SMALL;

    private StreamedBodies() {}

    /** Whether a body of {@code declared} bytes (-1: chunked, of unknown length) is streamed into {@code store}. */
    static boolean worthIt(GuardedStore store, long declared) {
        return store.streamsValues() && (declared < 0 || declared >= STREAM_FROM);
    }

    /** Streams the request's body (the request paused, {@code declared} from {@link Bodies#declaredLength}) into a write of {@code key}. */
    static Future<WriteResult> write(RoutingContext ctx, Bodies bodies, BodyBudget disk, GuardedStore store, String key,
                                     long token, long limit, long declared, Duration timeout) {
        long expected = declared < 0 ? limit : declared;
        return bodies.reserve(ctx, bodies.heap(), Math.min(expected, 2L * HIGH_WATER), "request bodies")
                .compose(v -> bodies.reserve(ctx, disk, expected, "streamed bodies (temporary disk)"))
                .compose(v -> pump(ctx, bodies, store, key, token, limit, declared, timeout));
    }

    private static Future<WriteResult> pump(RoutingContext ctx, Bodies bodies, GuardedStore store, String key,
                                            long token, long limit, long declared, Duration timeout) {
        Pump pump = new Pump(ctx.request(), ctx.vertx().getOrCreateContext(), limit, timeout);
        pump.deadline = bodies.deadline(ctx, pump::fail);
        ctx.addEndHandler(v -> pump.fail(new IllegalStateException("the request ended before its body did")));
        pump.bounded(store.openWrite(key, token, declared)).onComplete(opened -> {
            if (opened.failed()) {
                pump.fail(opened.cause());
            } else {
                pump.start(opened.result());
            }
        });
        return pump.result.future();
    }

    /** Moves the body's pieces to the store, one append at a time, on the request's event loop. */
    private static final class Pump {
        private final HttpServerRequest request;
        private final Context context;
        private final long limit;
        private final Duration timeout;
        private final Promise<WriteResult> result = Promise.promise();
        private BodyDeadline deadline;
        private StreamedWrite write;
        private List<ByteBuffer> pending = new ArrayList<>();
        private long pendingBytes;
        private long received;
        private boolean appending;
        private boolean ended;
        private boolean paused;
        /** Committing, or failed: nothing more to move. */
        private boolean done;

        Pump(HttpServerRequest request, Context context, long limit, Duration timeout) {
            this.request = request;
            this.context = context;
            this.limit = limit;
            this.timeout = timeout;
        }

        void start(StreamedWrite opened) {
            write = opened;
            if (done) { // the client went away while the write was opened
                write.abort();
                return;
            }
            request.handler(this::chunk);
            request.exceptionHandler(this::fail);
            request.endHandler(v -> {
                ended = true;
                deadline.stop();
                next();
            });
            Bodies.invite(request);
            request.resume();
        }

        private void chunk(Buffer chunk) {
            if (done) {
                return;
            }
            deadline.heard();
            received += chunk.length();
            if (received > limit) {
                // A chunked body that grows past the limit: stop reading; the answer closes the connection.
                request.handler(null);
                fail(Bodies.tooLarge(limit));
                return;
            }
            pending.add(bytesOf(chunk));
            pendingBytes += chunk.length();
            if (pendingBytes >= HIGH_WATER && !paused) {
                paused = true;
                request.pause();
            }
            next();
        }

        /** Hands what is pending to the store if no append is running; at the end, commits. */
        private void next() {
            if (done || appending) {
                return;
            }
            if (!pending.isEmpty()) {
                List<ByteBuffer> piece = pending;
                pending = new ArrayList<>();
                pendingBytes = 0;
                appending = true;
                if (paused && !ended) {
                    paused = false;
                    request.resume();
                }
                bounded(write.append(piece)).onComplete(appended -> {
                    appending = false;
                    if (appended.failed()) {
                        fail(appended.cause());
                    } else {
                        next();
                    }
                });
            } else if (ended) {
                done = true; // from here the write is the store's: a client that goes away changes nothing
                bounded(write.commit()).onComplete(result);
            }
        }

        void fail(Throwable cause) {
            if (deadline != null) {
                deadline.stop();
            }
            if (done) {
                return;
            }
            done = true;
            request.handler(null);
            if (write != null) {
                write.abort();
            }
            result.tryFail(cause);
        }

        /**
         * The chunk's bytes, not copied: Vert.x hands each piece over as a heap copy of its own (made
         * as it leaves the socket's pooled buffer), so another copy would only double the garbage.
         */
        private static ByteBuffer bytesOf(Buffer chunk) {
            return chunk instanceof BufferInternal internal ? internal.getByteBuf().nioBuffer() : ByteBuffer.wrap(chunk.getBytes());
        }

        private <T> Future<T> bounded(CompletionStage<T> stage) {
            return Future.fromCompletionStage(stage, context).timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
