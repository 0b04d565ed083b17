package io.fencegate.gateway.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * Reads a request body with a size limit, after the route's cheaper checks (404, 400, 428, 403) have
 * answered: DESIGN.md orders 413 after them. The request must have been paused when it arrived.
 */
final class Bodies {
    private Bodies() {}

    static Future<Buffer> read(HttpServerRequest request, long limit) {
        String declared = request.getHeader("Content-Length");
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.strip());
            } catch (NumberFormatException e) {
                return Future.failedFuture(Problem.badRequest(Problem.BAD_REQUEST, "malformed Content-Length"));
            }
            if (length > limit) {
                return Future.failedFuture(tooLarge(limit));
            }
        }
        Promise<Buffer> body = Promise.promise();
        Buffer collected = Buffer.buffer();
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
        request.resume();
        return body.future();
    }

    private static Problem tooLarge(long limit) {
        return new Problem(413, Problem.TOO_LARGE, "Content Too Large", "the body is over the limit of " + limit + " bytes")
                .with("limit", limit);
    }
}
