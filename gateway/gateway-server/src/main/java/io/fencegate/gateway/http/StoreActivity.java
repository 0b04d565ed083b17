package io.fencegate.gateway.http;

import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.store.Stale;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * What the status page shows of the stores: this gateway's write and fenced-read outcomes per
 * store, and its latest stale-write refusals (the moments fencing kept a stale holder's write
 * out). A decorator of the gateway's metrics, so the routes report once and both hear it; counts
 * are this gateway's since it started, like the Prometheus counters.
 */
final class StoreActivity implements GatewayMetrics {
    /** Where a route leaves the item's key for {@link #writeStale(String, String, Stale)}. */
    static final String KEY = "fencegate.key";
    /** Refusals kept; the page shows the newest. */
    static final int REFUSALS_KEPT = 20;

    private final GatewayMetrics delegate;
    private final Map<String, Counts> stores = new ConcurrentHashMap<>();
    private final Deque<JsonObject> refusals = new ArrayDeque<>();

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

    StoreActivity(GatewayMetrics delegate) {
        this.delegate = delegate;
    }

    private Counts of(String store) {
        return stores.computeIfAbsent(store, s -> new Counts());
    }

    /** Per store (those {@code visible} lets through): {@code {"writes":{applied,stale,refused},"fencedReads":{claimed,stale,refused}}}. */
    JsonObject counts(Iterable<String> names, Predicate<String> visible) {
        JsonObject out = new JsonObject();
        for (String name : names) {
            if (!visible.test(name)) {
                continue;
            }
            Counts c = of(name);
            out.put(name, new JsonObject()
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

    /** The newest refusals first, of the stores {@code visible} lets through. */
    JsonArray refusals(Predicate<String> visible) {
        JsonArray out = new JsonArray();
        synchronized (refusals) {
            for (JsonObject r : refusals) {
                if (visible.test(r.getString("store"))) {
                    out.add(r.copy());
                }
            }
        }
        return out;
    }

    @Override
    public void writeStale(String store, String key, Stale stale) {
        write(store, WriteOutcome.STALE);
        if (stale.alreadyApplied()) {
            return; // a retry of an applied write: nothing was saved from anything
        }
        JsonObject refusal = new JsonObject().put("store", store).put("key", key == null ? "" : PathDecoder.shorten(key))
                .put("attemptedToken", stale.attemptedToken()).put("currentToken", stale.currentToken())
                .put("fence", stale.fence()).put("at", System.currentTimeMillis());
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
