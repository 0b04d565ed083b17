package io.fencegate.gateway.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads a request body with a size limit, after the route's cheaper checks (404, 400, 428, 403) have
 * answered: DESIGN.md orders 413 after them. The request must have been paused when it arrived. A
 * large body is read only once this JVM's {@link BodyBudget} holds its bytes, which it keeps until
 * the answer is sent; a request that waited for them past {@code timeout} is answered 503.
 */
final class Bodies {
    private Bodies() {}

    static Future<Buffer> read(RoutingContext ctx, long limit, Duration timeout) {
        HttpServerRequest request = ctx.request();
        long declared;
        try {
            declared = declaredLength(request, limit);
        } catch (Problem p) {
            return Future.failedFuture(p);
        }
        long expected = declared < 0 ? limit : declared; // a body without a length may grow to the limit
        BodyBudget.Reservation reservation = BodyBudget.HEAP.reserve(expected);
        ctx.addEndHandler(done -> reservation.release());
        return Future.fromCompletionStage(reservation.ready(), ctx.vertx().getOrCreateContext())
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .recover(waited -> {
                    reservation.release();
                    return Future.failedFuture(Problem.unavailable(
                            "too many large bodies are being received; retry later"));
                })
                .compose(granted -> collect(request, limit, Math.max(0, declared)));
    }

    /**
     * Answers {@code 100 Continue} to a client that waits for it before it sends its body
     * ({@code Expect: 100-continue}, which curl sends with large bodies): sent only now, once the
     * checks before the body have passed, so a refused request never has its body sent, and a
     * client is not left waiting out its own timeout (curl's is a second) before sending.
     */
    static void invite(HttpServerRequest request) {
        String expect = request.getHeader("Expect");
        if (expect != null && expect.equalsIgnoreCase("100-continue")) {
            request.response().writeContinue();
        }
    }

    /** The body's Content-Length, or -1 if it has none (chunked); 400 if malformed, 413 if over {@code limit}. */
    static long declaredLength(HttpServerRequest request, long limit) {
        String declared = request.getHeader("Content-Length");
        if (declared == null) {
            return -1;
        }
        long length;
        try {
            length = Long.parseLong(declared.strip());
        } catch (NumberFormatException e) {
            length = -1;
        }
        if (length < 0) {
            throw Problem.badRequest(Problem.BAD_REQUEST, "malformed Content-Length");
        }
        if (length > limit) {
            throw tooLarge(limit);
        }
        return length;
    }

    private static Future<Buffer> collect(HttpServerRequest request, long limit, long length) {
        Promise<Buffer> body = Promise.promise();
        // Sized once when the length is known: growing by doubling copied a large body several times.
        Buffer collected = Buffer.buffer((int) Math.min(length, Integer.MAX_VALUE - 8));
        request.handler(chunk -> {
            if (collected.length() + (long) chunk.length() > limit) {
                // A chunked body that grows past the limit: stop reading; the answer closes the connection.
                request.handler(null);
                body.tryFail(tooLarge(limit));
            } else {
                collected.appendBuffer(chunk);
            }
        });
        request.exceptionHandler(body::tryFail);
        request.endHandler(v -> body.tryComplete(collected));
        invite(request);
        request.resume();
        return body.future();
    }

    static Problem tooLarge(long limit) {
        return new Problem(413, Problem.TOO_LARGE, "Content Too Large", "the body is over the limit of " + limit + " bytes")
                .with("limit", limit);
    }
}
