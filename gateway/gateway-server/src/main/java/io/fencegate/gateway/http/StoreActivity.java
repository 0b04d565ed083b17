package io.fencegate.gateway.http;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.store.Stale;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the status page shows of the stores: this gateway's write and fenced-read outcomes per
 * store, and its latest stale-write refusals (the moments fencing kept a stale holder's write
 * out). A decorator of the gateway's metrics, so the routes report once and both hear it; counts
 * are this gateway's since it started, like the Prometheus counters.
 *
 * <p>A viewer sees what its API key may see on {@code /v1}, by the same rule
 * ({@link Principal#mayUseItem}): a refusal only if the key may use the refused item, a store's
 * counts only if it may use every item of the store.
 */
final class StoreActivity implements GatewayMetrics {
    /** Where a route leaves the item's key for {@link #writeStale(String, String, Stale)}. */
    static final String KEY = "fencegate.key";
    /** Refusals kept; the page shows the newest. */
    static final int REFUSALS_KEPT = 20;

    private final GatewayMetrics delegate;
    private final Map<String, StoreBinding> bindings = new LinkedHashMap<>();
    private final Map<String, Counts> stores = new ConcurrentHashMap<>();
    private final Deque<Refusal> refusals = new ArrayDeque<>();

    /**
     * A refusal as shown, and the lock guarding its item, by which a viewer may see it: taken from
     * the whole key (the one shown may be shortened), never sent.
     */
    private record Refusal(String store, String lock, JsonObject shown) {}

    /** One store's counts, by outcome (indexed by the enums' ordinals). */
    private static final class Counts {
        final LongAdder[] writes = adders(WriteOutcome.values().length);
        final LongAdder[] reads = adders(ReadOutcome.values().length);

        private static LongAdder[] adders(int n) {
            LongAdder[] adders = new LongAdder[n];
            Arrays.setAll(adders, i -> new LongAdder());
            return adders;
        }
    }

    StoreActivity(GatewayMetrics delegate, List<StoreBinding> stores) {
        this.delegate = delegate;
        stores.forEach(b -> bindings.put(b.name(), b));
    }

    private Counts of(String store) {
        return stores.computeIfAbsent(store, s -> new Counts());
    }

    /**
     * Per store {@code viewer} may use, in configured order:
     * {@code {"writes":{applied,stale,refused,retried},"fencedReads":{claimed,stale,refused}}}, or
     * {@code {"partial":true}} for a store it may use only part of.
     *
     * <p>Why no counts for part of a store: they are sums over every item of it, so a key scoped to
     * {@code main/alice/} would watch {@code main}'s stale count move when a holder of bob's was
     * refused, which {@code /v1} never tells it. Counting per key's prefixes instead would need the
     * item's lock with every outcome (a write refused for a malformed key has none) and counters
     * per key and store. A key that covers the whole store sees them (so does {@code /metrics},
     * which needs no key and belongs on a private network).
     */
    JsonObject counts(Principal viewer) {
        JsonObject out = new JsonObject();
        for (StoreBinding b : bindings.values()) {
            if (!viewer.mayUseStore(b.name())) {
                continue;
            }
            if (!viewer.mayUseItem(b.name(), b.lockPrefix())) {
                out.put(b.name(), new JsonObject().put("partial", true));
                continue;
            }
            Counts c = of(b.name());
            out.put(b.name(), new JsonObject()
                    .put("writes", sums(WriteOutcome.values(), c.writes))
                    .put("fencedReads", sums(ReadOutcome.values(), c.reads)));
        }
        return out;
    }

    private static JsonObject sums(Outcome[] outcomes, LongAdder[] adders) {
        JsonObject sums = new JsonObject();
        for (Outcome outcome : outcomes) {
            sums.put(outcome.label(), adders[outcome.ordinal()].sum());
        }
        return sums;
    }

    /** The newest refusals first, of the items {@code viewer} may use. */
    JsonArray refusals(Principal viewer) {
        JsonArray out = new JsonArray();
        synchronized (refusals) {
            for (Refusal r : refusals) {
                if (viewer.mayUseItem(r.store(), r.lock())) {
                    out.add(r.shown().copy());
                }
            }
        }
        return out;
    }

    @Override
    public void writeStale(String store, String key, Stale stale) {
        write(store, GatewayMetrics.outcomeOf(stale));
        if (stale.alreadyApplied()) {
            return; // a retry of an applied write: nothing was saved from anything
        }
        StoreBinding binding = bindings.get(store);
        if (binding == null) {
            return; // not a store of this gateway: there is no rule to show it by
        }
        String item = key == null ? "" : key;
        Refusal refusal = new Refusal(store, binding.lockFor(item), new JsonObject().put("store", store)
                .put("key", PathDecoder.shorten(item))
                .put("attemptedToken", stale.attemptedToken()).put("currentToken", stale.currentToken())
                .put("fence", stale.fence()).put("at", System.currentTimeMillis()));
        synchronized (refusals) {
            refusals.addFirst(refusal);
            if (refusals.size() > REFUSALS_KEPT) {
                refusals.removeLast();
            }
        }
    }

    @Override
    public void write(String store, WriteOutcome outcome) {
        of(store).writes[outcome.ordinal()].increment();
        delegate.write(store, outcome);
    }

    @Override
    public void fencedRead(String store, ReadOutcome outcome) {
        of(store).reads[outcome.ordinal()].increment();
        delegate.fencedRead(store, outcome);
    }

    @Override
    public void leaseGranted() {
        delegate.leaseGranted();
    }

    @Override
    public void leaseDenied() {
        delegate.leaseDenied();
    }

    @Override
    public Handler<RoutingContext> timed(String route, Handler<RoutingContext> handler) {
        return delegate.timed(route, handler);
    }

    @Override
    public boolean enabled() {
        return delegate.enabled();
    }

    @Override
    public String scrape() {
        return delegate.scrape();
    }

    @Override
    public String contentType() {
        return delegate.contentType();
    }
}
