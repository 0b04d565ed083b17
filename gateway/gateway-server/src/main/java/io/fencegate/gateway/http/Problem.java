package io.fencegate.gateway.http;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * An RFC 9457 problem the gateway answers with: a status, a stable {@code type}, a title and a
 * detail, plus any extra members (a stale answer's {@code currentToken} and {@code fence}). Thrown
 * or failed with by route code; {@link #send} writes it.
 */
public final class Problem extends RuntimeException {
    private static final String PREFIX = "urn:fencegate:problem:";

    public static final String BAD_REQUEST = PREFIX + "bad-request";
    public static final String BAD_KEY = PREFIX + "bad-key";
    public static final String BAD_TOKEN = PREFIX + "bad-token";
    public static final String MISSING_TOKEN = PREFIX + "missing-token";
    public static final String TOKEN_NOT_GRANTED = PREFIX + "token-not-granted";
    /** A read lease's token on a write path (PUT, DELETE, statement, transaction). */
    public static final String READ_TOKEN = PREFIX + "read-token";
    /** The issuer does not keep this shape of lease (a read lease, a semaphore) yet. */
    public static final String UNSUPPORTED = PREFIX + "unsupported";
    public static final String UNKNOWN_STORE = PREFIX + "unknown-store";
    public static final String UNKNOWN_STATEMENT = PREFIX + "unknown-statement";
    public static final String NOT_FOUND = PREFIX + "not-found";
    public static final String NO_SUCH_ROUTE = PREFIX + "no-such-route";
    public static final String METHOD_NOT_ALLOWED = PREFIX + "method-not-allowed";
    public static final String TOO_LARGE = PREFIX + "too-large";
    public static final String BODY_TIMEOUT = PREFIX + "body-timeout";
    public static final String TOO_MANY = PREFIX + "too-many";
    public static final String STALE = PREFIX + "stale";
    public static final String NO_TRANSACTIONS = PREFIX + "transactions-unsupported";
    public static final String LOCK_HELD = PREFIX + "lock-held";
    public static final String LEASE_GONE = PREFIX + "lease-gone";
    public static final String UNAVAILABLE = PREFIX + "unavailable";
    public static final String INTERNAL = PREFIX + "internal";

    private final int status;
    private final String type;
    private final String title;
    private final JsonObject extra = new JsonObject();
    private long retryAfterSeconds = -1;

    public Problem(int status, String type, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public static Problem badRequest(String type, String detail) {
        return new Problem(400, type, "Bad Request", detail);
    }

    public static Problem unavailable(String detail) {
        return new Problem(503, UNAVAILABLE, "Service Unavailable", detail);
    }

    /** 429: the API key holds its whole share of a shared resource ({@code what}); it may retry after {@code seconds}. */
    public static Problem tooMany(String detail, long seconds) {
        return new Problem(429, TOO_MANY, "Too Many Requests", detail).retryAfter(seconds);
    }

    /** Adds a {@code Retry-After} header, in seconds. */
    public Problem retryAfter(long seconds) {
        this.retryAfterSeconds = seconds;
        return this;
    }

    /** Adds a member to the body, e.g. {@code currentToken}. */
    public Problem with(String name, Object value) {
        extra.put(name, value);
        return this;
    }

    /** The {@code Retry-After} seconds this problem is sent with, or -1 for none. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public JsonObject body() {
        return new JsonObject().put("type", type).put("title", title).put("status", status)
                .put("detail", getMessage()).mergeIn(extra);
    }

    /** Answers with this problem, unless an answer has already gone out. */
    public void send(RoutingContext ctx) {
        if (ctx.response().ended() || ctx.response().headWritten()) {
            return;
        }
        if (retryAfterSeconds >= 0) {
            ctx.response().putHeader("Retry-After", Long.toString(retryAfterSeconds));
        }
        ctx.response().setStatusCode(status)
                .putHeader("Content-Type", "application/problem+json")
                .end(body().encode());
    }
}
