package io.fencegate.gateway.http;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Whether a token was granted for the lock guarding an item, and in which mode: asked of the issuer,
 * which keeps a log of its grants ({@link LeaseIssuer#grantedMode}). A token nobody was granted, such
 * as {@code 9223372036854775807}, would otherwise fence an item forever; a read lease's token would
 * otherwise write while other read leases of the lock read.
 *
 * <p>Why a look-up and not a signed proof in the token: tokens are plain numbers the client must
 * be able to pass to any resource, and the issuer already keeps the grant. "Granted, in this mode"
 * is a permanent fact, so positive answers are cached with their mode; negative ones never are (the
 * grant may be in flight). The cache is bounded and simply starts over when full: a miss costs one
 * issuer round trip.
 */
final class GrantCheck {
    private static final int MAX_CACHED = 100_000;

    /** What a request does with the item: a fenced read takes a token of either mode, a write only a write token. */
    enum Access { READ, WRITE }

    private record Grant(String lock, long token) {}

    private final LeaseIssuer issuer;
    private final Duration timeout;
    private final Map<Grant, LeaseMode> granted = new ConcurrentHashMap<>();

    GrantCheck(LeaseIssuer issuer, Duration timeout) {
        this.issuer = issuer;
        this.timeout = timeout;
    }

    /**
     * Succeeds if {@code token} was granted for {@code lock} in a mode that allows {@code access};
     * fails with a 403 problem if it was not granted or is a read lease's token asked to write, or
     * with the issuer's failure.
     */
    Future<Void> require(Context context, String lock, long token, Access access) {
        Grant grant = new Grant(lock, token);
        LeaseMode cached = granted.get(grant);
        if (cached != null) {
            return allows(cached, lock, token, access);
        }
        return Future.fromCompletionStage(issuer.grantedMode(lock, token), context)
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .compose((Optional<LeaseMode> mode) -> {
                    if (mode.isEmpty()) {
                        return Future.failedFuture(new Problem(403, Problem.TOKEN_NOT_GRANTED, "Forbidden",
                                "token " + token + " was not granted for lock '" + lock + "'")
                                .with("lock", lock));
                    }
                    if (granted.size() >= MAX_CACHED) {
                        granted.clear();
                    }
                    granted.put(grant, mode.get());
                    return allows(mode.get(), lock, token, access);
                });
    }

    private static Future<Void> allows(LeaseMode mode, String lock, long token, Access access) {
        if (access == Access.WRITE && mode == LeaseMode.READ) {
            return Future.failedFuture(new Problem(403, Problem.READ_TOKEN, "Forbidden",
                    "token " + token + " was granted as a read lease of lock '" + PathDecoder.shorten(lock)
                            + "': a read lease's token fences reads and never writes; acquire the lock in write mode")
                    .with("lock", lock).with("mode", LeaseMode.READ.wireName()));
        }
        return Future.succeededFuture();
    }
}
