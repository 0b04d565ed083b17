package io.fencegate.gateway.http;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Whether a token was granted for the lock guarding an item: asked of the issuer, which keeps a log
 * of its grants ({@link LeaseIssuer#wasGranted}). A token nobody was granted, such as
 * {@code 9223372036854775807}, would otherwise fence an item forever.
 *
 * <p>Why a look-up and not a signed proof in the token: tokens are plain numbers the client must
 * be able to pass to any resource, and the issuer already keeps the grant. "Granted" is a permanent
 * fact, so positive answers are cached; negative ones never are (the grant may be in flight). The
 * cache is bounded and simply starts over when full: a miss costs one issuer round trip.
 *
 * <p>A read lease's token is refused too ({@link LeaseIssuer#grantedMode}): it may never write, and
 * the gateway does not grant read leases yet, so no request of its own carries one. (Once it does,
 * fenced reads will take either mode: DESIGN.md, "Read-write leases and fenced semaphores".)
 */
final class GrantCheck {
    private static final int MAX_CACHED = 100_000;

    private record Grant(String lock, long token) {}

    private final LeaseIssuer issuer;
    private final Duration timeout;
    private final Map<Grant, Boolean> granted = new ConcurrentHashMap<>();

    GrantCheck(LeaseIssuer issuer, Duration timeout) {
        this.issuer = issuer;
        this.timeout = timeout;
    }

    /** Succeeds if granted; fails with a 403 problem if not, or with the issuer's failure. */
    Future<Void> require(Context context, String lock, long token) {
        Grant grant = new Grant(lock, token);
        if (granted.containsKey(grant)) {
            return Future.succeededFuture();
        }
        return Future.fromCompletionStage(issuer.grantedMode(lock, token), context)
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .compose(mode -> {
                    if (mode.isEmpty()) {
                        return Future.failedFuture(new Problem(403, Problem.TOKEN_NOT_GRANTED, "Forbidden",
                                "token " + token + " was not granted for lock '" + lock + "'")
                                .with("lock", lock));
                    }
                    if (mode.get() == LeaseMode.READ) {
                        return Future.failedFuture(new Problem(403, Problem.TOKEN_NOT_GRANTED, "Forbidden",
                                "token " + token + " was granted to a read lease on lock '" + lock + "': it never writes")
                                .with("lock", lock));
                    }
                    if (granted.size() >= MAX_CACHED) {
                        granted.clear();
                    }
                    granted.put(grant, Boolean.TRUE);
                    return Future.succeededFuture();
                });
    }
}
