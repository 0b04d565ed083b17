package io.fencegate.gateway.http;

import io.fencegate.gateway.auth.Principal;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads request bodies with a size limit, after the route's cheaper checks (404, 400, 428, 403) have
 * answered: DESIGN.md orders 413 after them. The request must have been paused when it arrived.
 *
 * <p>What a body may hold of the heap is bounded three ways. Its declared length (a chunked body:
 * its limit) is reserved in the gateway's {@link BodyBudget} before a byte is read, and given back
 * when the answer is sent; a request that waited for it past {@code waitTimeout} is answered 503,
 * and one whose API key holds its whole share is answered 429, both with {@code Retry-After}.
 * Nothing is allocated by the declaration: the pieces are kept as they arrive and copied once, into
 * a buffer of the size received, at the end. And the body has its {@link BodyDeadline}s: a body
 * that trickles is answered 408 and frees its bytes.
 */
final class Bodies {
    private final BodyBudget heap;
    private final Duration idle;
    private final Duration total;
    private final Duration waitTimeout;

    Bodies(BodyBudget heap, Duration idle, Duration total, Duration waitTimeout) {
        this.heap = heap;
        this.idle = idle;
        this.total = total;
        this.waitTimeout = waitTimeout;
    }

    BodyBudget heap() {
        return heap;
    }

    Future<Buffer> read(RoutingContext ctx, long limit) {
        HttpServerRequest request = ctx.request();
        long declared;
        try {
            declared = declaredLength(request, limit);
        } catch (Problem p) {
            return Future.failedFuture(p);
        }
        long expected = declared < 0 ? limit : declared; // a body without a length may grow to the limit
        return reserve(ctx, heap, expected, "request bodies").compose(granted -> collect(ctx, limit));
    }

    /**
     * Reserves {@code bytes} of {@code budget} for the request's API key until its answer is sent:
     * 429 at once if the key holds its whole share, 503 if the budget stays full past the wait.
     */
    Future<Void> reserve(RoutingContext ctx, BodyBudget budget, long bytes, String what) {
        BodyBudget.Reservation reservation = budget.reserve(Principal.of(ctx).name(), bytes);
        if (reservation == null) {
            return Future.failedFuture(Problem.tooMany(
                    "this API key's " + what + " in flight hold its whole share; retry later", 1));
        }
        ctx.addEndHandler(done -> reservation.release());
        return Future.fromCompletionStage(reservation.ready(), ctx.vertx().getOrCreateContext())
                .timeout(waitTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .recover(waited -> {
                    reservation.release();
                    return Future.failedFuture(Problem.unavailable(
                            "too many " + what + " are in flight; retry later").retryAfter(1));
                });
    }

    /** The body's deadlines, started now; {@code expired} fails the request with its 408. */
    BodyDeadline deadline(RoutingContext ctx, java.util.function.Consumer<Problem> expired) {
        return BodyDeadline.start(ctx.vertx(), idle, total, expired);
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

    private Future<Buffer> collect(RoutingContext ctx, long limit) {
        HttpServerRequest request = ctx.request();
        Promise<Buffer> body = Promise.promise();
        List<Buffer> pieces = new ArrayList<>();
        long[] received = {0};
        BodyDeadline deadline = deadline(ctx, expired -> {
            request.handler(null);
            body.tryFail(expired);
        });
        request.handler(chunk -> {
            deadline.heard();
            received[0] += chunk.length();
            if (received[0] > limit) {
                // A chunked body that grows past the limit: stop reading; the answer closes the connection.
                request.handler(null);
                deadline.stop();
                body.tryFail(tooLarge(limit));
            } else {
                pieces.add(chunk);
            }
        });
        request.exceptionHandler(t -> {
            deadline.stop();
            body.tryFail(t);
        });
        request.endHandler(v -> {
            deadline.stop();
            // Sized by the bytes that arrived, never by what the client declared.
            Buffer whole = Buffer.buffer((int) received[0]);
            pieces.forEach(whole::appendBuffer);
            pieces.clear();
            body.tryComplete(whole);
        });
        invite(request);
        request.resume();
        return body.future();
    }

    static Problem tooLarge(long limit) {
        return new Problem(413, Problem.TOO_LARGE, "Content Too Large", "the body is over the limit of " + limit + " bytes")
                .with("limit", limit);
    }
}
