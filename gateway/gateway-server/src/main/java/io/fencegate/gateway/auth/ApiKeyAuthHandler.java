package io.fencegate.gateway.auth;

import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.security.MessageDigest;
import java.util.List;

/**
 * Authenticates {@code Authorization: Bearer <key>} against the configured hashes and attaches the
 * {@link Principal}; a missing or unknown key is a 401 problem. With no keys configured it attaches
 * {@link Principal#ANONYMOUS} (the launcher allows that on loopback only).
 *
 * <p>Mount it before the {@code /v1/*} routes: {@code router.route("/v1/*").handler(ApiKeyAuthHandler.create(cfg))}.
 */
public final class ApiKeyAuthHandler implements Handler<RoutingContext> {
    public static final String UNAUTHORIZED = "urn:fencegate:problem:unauthorized";
    public static final String FORBIDDEN = "urn:fencegate:problem:forbidden";

    private static final String BEARER = "bearer ";

    private final List<Entry> entries;

    private record Entry(byte[] hash, Principal principal) {}

    private ApiKeyAuthHandler(List<Entry> entries) {
        this.entries = entries;
    }

    /** Validates {@code config} (throws naming the bad key) and builds the handler. */
    public static ApiKeyAuthHandler create(AuthConfig config) {
        config.validate();
        return new ApiKeyAuthHandler(config.keys().stream()
                .map(k -> new Entry(AuthConfig.hashBytes(k), Principal.of(k)))
                .toList());
    }

    /** Whether keys are configured; without, every caller is {@link Principal#ANONYMOUS} and sees everything. */
    public boolean enabled() {
        return !entries.isEmpty();
    }

    @Override
    public void handle(RoutingContext ctx) {
        if (entries.isEmpty()) {
            ctx.put(Principal.CONTEXT_KEY, Principal.ANONYMOUS);
            ctx.next();
            return;
        }
        String header = ctx.request().getHeader("Authorization");
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            unauthorized(ctx, "send the API key as 'Authorization: Bearer <key>'");
            return;
        }
        Principal p = authenticate(header.substring(BEARER.length()).strip());
        if (p == null) {
            unauthorized(ctx, "unknown API key");
            return;
        }
        ctx.put(Principal.CONTEXT_KEY, p);
        ctx.next();
    }

    /**
     * For routes where a key is optional (the status page): {@link Principal#ANONYMOUS} when no keys
     * are configured, the key's principal for a known key, empty when none was sent; a sent key
     * that is unknown is refused with 401 like on {@code /v1/*} ({@code null} answer, already sent).
     */
    public java.util.Optional<Principal> optional(RoutingContext ctx) {
        if (entries.isEmpty()) {
            return java.util.Optional.of(Principal.ANONYMOUS);
        }
        String header = ctx.request().getHeader("Authorization");
        if (header == null || header.isBlank()) {
            return java.util.Optional.empty();
        }
        Principal p = header.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? authenticate(header.substring(BEARER.length()).strip()) : null;
        if (p == null) {
            unauthorized(ctx, "unknown API key");
            return null;
        }
        return java.util.Optional.of(p);
    }

    /**
     * Finds the key by its hash. Every entry is compared, with a constant-time compare and no early
     * exit, so the answer time says nothing about which (or how much of a) hash matched.
     */
    Principal authenticate(String presented) {
        byte[] hash = ApiKeyHasher.digest(presented);
        Principal found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.hash(), hash)) {
                found = e.principal();
            }
        }
        return found;
    }

    private static void unauthorized(RoutingContext ctx, String detail) {
        ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"fencegate\"");
        problem(ctx, 401, UNAUTHORIZED, "Unauthorized", detail);
    }

    private static void problem(RoutingContext ctx, int status, String type, String title, String detail) {
        ctx.response().setStatusCode(status)
                .putHeader("Content-Type", "application/problem+json")
                .end(new JsonObject().put("type", type).put("title", title).put("status", status)
                        .put("detail", detail).encode());
    }
}
