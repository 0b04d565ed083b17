package io.fencegate.gateway.http;

import io.fencegate.gateway.FatalErrors;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.store.StoreUnavailableException;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns whatever a route failed with into the problem it answers. */
public final class Failures {
    private static final Logger LOG = LoggerFactory.getLogger(Failures.class);
    /** The store a {@code /v1/stores/...} request addresses, put on the context once it is known. */
    static final String STORE = "fencegate.store";
    static final OutageLog OUTAGES = new OutageLog(Duration.ofSeconds(30));

    private Failures() {}

    /**
     * The router's failure handler: a {@link Problem} as is; an unreachable or slow backend 503
     * (a write may have applied: a retry with the same token tells, see DESIGN.md); bad input the
     * store refused 400; a status the router set itself (404, 405, 413) as that status; anything
     * else 500, logged.
     */
    public static void handle(RoutingContext ctx) {
        Throwable failure = ctx.failure();
        if (failure != null && FatalErrors.isFatal(failure)) {
            FatalErrors.die(Thread.currentThread().getName(), failure);
        }
        Problem problem = failure != null ? toProblem(failure, ctx.get(STORE)) : byStatus(ctx.statusCode());
        if (problem.status() == 500) {
            LOG.error("{} {} failed", ctx.request().method(), ctx.request().path(), failure);
        }
        if (!ctx.request().isEnded()) {
            // Refused before its body was read (the request is paused): let the rest of the body
            // flow in and drop it, so a client still uploading sees the answer, then hang up.
            ctx.request().handler(null).resume();
            ctx.response().putHeader("Connection", "close");
        }
        if (problem.status() == 408 && ctx.request().version() != HttpVersion.HTTP_2) {
            // A body too slow to finish: answer, then hang up rather than drain a trickle.
            ctx.response().endHandler(v -> ctx.request().connection().close());
        }
        problem.send(ctx);
    }

    /**
     * The problem {@code t} answers. A backend's failure answers a stable summary that names the
     * failing part ({@code store} is the store the request addresses, or null); its details are
     * logged ({@link OutageLog}), never sent.
     */
    static Problem toProblem(Throwable t, String store) {
        Throwable cause = unwrap(t);
        if (cause instanceof Problem p) {
            return p;
        }
        String retry = store == null ? "" : "; a write may have applied: retry with the same token";
        if (cause instanceof StoreUnavailableException && store != null) {
            OUTAGES.failed("store '" + store + "'", cause);
            return Problem.unavailable("store '" + store + "' is unavailable" + retry);
        }
        if (cause instanceof IssuerUnavailableException || cause instanceof StoreUnavailableException) {
            OUTAGES.failed("issuer", cause);
            return Problem.unavailable("the lease issuer is unavailable" + retry);
        }
        if (cause instanceof TimeoutException) {
            OUTAGES.failed(store == null ? "issuer" : "store '" + store + "' or issuer", cause);
            return Problem.unavailable("the backend did not answer in time" + retry);
        }
        if (cause instanceof IllegalArgumentException) {
            return Problem.badRequest(Problem.BAD_REQUEST, cause.getMessage());
        }
        return new Problem(500, Problem.INTERNAL, "Internal Server Error", "unexpected error; see the gateway's log");
    }

    private static Problem byStatus(int status) {
        return switch (status) {
            case 404 -> new Problem(404, Problem.NO_SUCH_ROUTE, "Not Found", "no such route");
            case 405 -> new Problem(405, Problem.METHOD_NOT_ALLOWED, "Method Not Allowed", "method not allowed on this route");
            case 413 -> new Problem(413, Problem.TOO_LARGE, "Content Too Large", "request body over the limit");
            case 400 -> Problem.badRequest(Problem.BAD_REQUEST, "bad request");
            case 503 -> Problem.unavailable("the request timed out");
            default -> new Problem(status < 400 ? 500 : status, Problem.INTERNAL, "Error", "request failed");
        };
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
