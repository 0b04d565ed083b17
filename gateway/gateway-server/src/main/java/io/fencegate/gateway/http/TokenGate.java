package io.fencegate.gateway.http;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKeyAuthHandler;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.http.GrantCheck.Access;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks a token-carrying request passes before its body is read or its store is touched:
 * the token is there and well-formed (428 / 400), the caller's API key covers the item's lock and
 * the issuer granted the token for that lock, in write mode for a write (403). DESIGN.md fixes this order.
 */
final class TokenGate {
    private final GrantCheck grants;

    TokenGate(GrantCheck grants) {
        this.grants = grants;
    }

    /** The request's token; 428 if it has none, 400 if it is malformed. */
    static long required(RoutingContext ctx) {
        long token = FencingToken.of(ctx);
        if (token == 0) {
            throw new Problem(428, Problem.MISSING_TOKEN, "Precondition Required",
                    "send the lease's token in the Fencing-Token header");
        }
        return token;
    }

    /**
     * The API key may use the store at all; 403 otherwise. Asked first, before the key is parsed
     * (DESIGN.md's order); {@link #permitLock} then applies the whole rule for the item.
     */
    static void permitStore(RoutingContext ctx, StoreBinding binding) {
        if (!Principal.of(ctx).mayUseStore(binding.name())) {
            throw new Problem(403, ApiKeyAuthHandler.FORBIDDEN, "Forbidden",
                    "this API key may not use store '" + binding.name() + "'");
        }
    }

    /**
     * The lock guarding {@code key} of {@code binding}, if the API key's lock prefixes cover it; 403
     * otherwise. Every item route asks, plain reads too: a key scoped to {@code orders/a/} reads
     * no more than it may write. {@link Principal#mayUseItem} is the rule; the status page shows
     * items by it too.
     */
    static String permitLock(RoutingContext ctx, StoreBinding binding, String key) {
        String lock = binding.lockFor(key);
        if (!Principal.of(ctx).mayUseItem(binding.name(), lock)) {
            throw new Problem(403, ApiKeyAuthHandler.FORBIDDEN, "Forbidden",
                    "this API key may not use lock '" + PathDecoder.shorten(lock) + "'");
        }
        return lock;
    }

    /**
     * {@link #admit} for several items (a transaction, a fenced multi-read): the API key's lock
     * prefixes are checked for every item before the issuer is asked about any grant, and each
     * distinct lock and token is asked once. The first refusal answers (403).
     */
    Future<Void> admitAll(RoutingContext ctx, StoreBinding binding, List<String> keys, List<Long> tokens, Access access) {
        Map<String, Set<Long>> wanted = new LinkedHashMap<>();
        try {
            for (int i = 0; i < keys.size(); i++) {
                wanted.computeIfAbsent(permitLock(ctx, binding, keys.get(i)), l -> new LinkedHashSet<>()).add(tokens.get(i));
            }
        } catch (Problem p) {
            return Future.failedFuture(p);
        }
        List<Future<Void>> checks = new ArrayList<>();
        wanted.forEach((lock, ts) -> ts.forEach(t -> checks.add(grants.require(ctx.vertx().getOrCreateContext(), lock, t, access))));
        return Future.all(checks).mapEmpty();
    }

    /** The issuer granted {@code token} for {@code lock} (for {@code access}); a 403 problem otherwise. */
    Future<Void> grant(RoutingContext ctx, String lock, long token, Access access) {
        return grants.require(ctx.vertx().getOrCreateContext(), lock, token, access);
    }

    /**
     * Succeeds when {@code token} may touch {@code key} of {@code binding} for {@code access}; fails
     * with a 403 problem otherwise (a read lease's token asked to write among them).
     */
    Future<Void> admit(RoutingContext ctx, StoreBinding binding, String key, long token, Access access) {
        String lock;
        try {
            lock = permitLock(ctx, binding, key);
        } catch (Problem p) {
            return Future.failedFuture(p);
        }
        return grants.require(ctx.vertx().getOrCreateContext(), lock, token, access);
    }
}
