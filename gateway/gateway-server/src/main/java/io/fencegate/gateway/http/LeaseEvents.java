package io.fencegate.gateway.http;

import io.fencegate.gateway.auth.Principal;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /v1/leases/{leaseId}/events}: a server-sent-events stream of one lease's life,
 * {@code renewed} while it lives, then exactly one of {@code released}, {@code expired} or
 * {@code lost}, and the stream closes. A gateway that is stopping (SIGTERM) ends every stream it
 * serves with {@code stopping} instead: the lease lives on, and the watcher reconnects to another
 * gateway, which can serve the same watch.
 *
 * <p>Why polling the issuer and not this gateway's own listeners: the lease may have been granted
 * through another gateway, whose listeners are in another process (and maybe dead: that is the
 * case a watcher most needs to hear of). Every gateway on the backend reads the same lease, so
 * any of them can serve the stream. A poll is one read (a ZooKeeper getData, a Redis script), every
 * {@link #POLL_MS} ms; that interval bounds how late an end is told. The streams that watch one
 * lease share one poll ({@link LeasePoll}), so the issuer's load grows with the leases watched.
 *
 * <p>How an end is named: the issuer says whether it was a release ({@link LeaseIssuer#wasReleased});
 * otherwise the lease ended at or after the last expiry the gateway saw ({@code expired}), or
 * before it, which only a lost ZooKeeper session does ({@code lost}).
 */
final class LeaseEvents {
    /** How often a watched lease is read; the bound on how late a watcher hears of its end. */
    static final long POLL_MS = 100;
    /** Leases one gateway watches at once: each one is read every POLL_MS, however many watch it. */
    static final int MAX_LEASES = io.fencegate.gateway.KeyShares.TOTAL_WATCHED_LEASES;
    /**
     * A renew moves the expiry by at least ttl/3 in practice; Redis's expiry is measured (send
     * time + remaining ttl), so it wobbles by a round trip. Smaller moves are not reported.
     */
    private static final long RENEW_JITTER_MS = 25;
    /** What a {@code stopping} event tells the watcher. */
    static final String STOPPING = "gateway stopping; reconnect elsewhere";

    private final LeaseIssuer issuer;
    private final Duration timeout;
    private final long heartbeatMs;
    /** Streams and watched leases, counted per key (and in total: {@code KeyShares}). */
    private final TenantShares shares;
    /** The running polls by lease id: one per watched lease. */
    private final Map<String, LeasePoll> polls = new ConcurrentHashMap<>();
    /** The open streams, for a connection's shutdown to find its own (HTTP/2 carries many on one). */
    private final Set<Stream> open = ConcurrentHashMap.newKeySet();

    LeaseEvents(LeaseIssuer issuer, Duration timeout, TenantShares shares) {
        this.issuer = issuer;
        this.shares = shares;
        this.timeout = timeout;
        // Under the server's idle timeout (twice the request timeout): an idle stream is not cut.
        this.heartbeatMs = Math.max(1000, timeout.toMillis());
    }

    void watch(RoutingContext ctx) {
        String leaseId = ctx.pathParam("leaseId");
        // Authorized before the read, by the lock the id names (LeaseAccess); checked again on the lease read.
        Optional<String> named = issuer.lockOf(leaseId);
        if (named.isPresent() && !LeaseAccess.allowed(ctx, named.get())) {
            return;
        }
        // The key's share of streams and watched leases, taken before the read, given back by the stream's end.
        String bucket = shares.bucket(ctx);
        Problem refused = shares.startWatch(bucket, leaseId);
        if (refused != null) {
            ctx.fail(refused);
            return;
        }
        Runnable giveBack = () -> shares.endWatch(bucket, leaseId);
        call(ctx, issuer.find(leaseId)).onSuccess(found -> {
            if (found.isEmpty()) {
                giveBack.run();
                new Problem(410, Problem.LEASE_GONE, "Gone", "the lease has ended (expired, released or never granted)")
                        .send(ctx);
                return;
            }
            Lease lease = found.get();
            if (!Principal.of(ctx).mayUseLock(lease.lock())) {
                giveBack.run();
                ctx.fail(LeaseAccess.forbidden(lease.lock()));
                return;
            }
            // Racy by a few under a burst of new leases; the bound is on the order of magnitude.
            if (polls.size() >= MAX_LEASES && !polls.containsKey(lease.leaseId())) {
                giveBack.run();
                ctx.fail(Problem.unavailable("this gateway already watches " + MAX_LEASES + " leases").retryAfter(5));
                return;
            }
            new Stream(ctx, lease, giveBack).start();
        }).onFailure(e -> {
            giveBack.run();
            ctx.fail(e);
        });
    }

    private <T> Future<T> call(RoutingContext ctx, CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, ctx.vertx().getOrCreateContext())
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** How many leases this gateway reads for its watchers now (one poll each). */
    int watchedLeases() {
        return polls.size();
    }

    /** One open stream: told by its lease's poll until the lease ends or the client goes away. */
    private final class Stream implements LeasePoll.Watcher {
        private final RoutingContext ctx;
        /** Gives the key's share back, once, when the stream ends. */
        private final Runnable giveBack;
        private final HttpServerResponse response;
        private final Context context;
        private LeasePoll poll;
        private Lease last;
        private long lastWriteMs;
        private boolean done;

        Stream(RoutingContext ctx, Lease lease, Runnable giveBack) {
            this.ctx = ctx;
            this.giveBack = giveBack;
            this.response = ctx.response();
            this.context = ctx.vertx().getOrCreateContext();
            this.last = lease;
        }

        void start() {
            response.setChunked(true)
                    .putHeader("Content-Type", "text/event-stream; charset=utf-8")
                    .putHeader("Cache-Control", "no-cache")
                    // Proxies that buffer (nginx) would hold events back until the stream ends.
                    .putHeader("X-Accel-Buffering", "no");
            response.closeHandler(v -> finish());
            if (response.closed()) {
                finish(); // gone while the lease was read: no close will be told, give the share back now
                return;
            }
            // Gateway.close() shuts the server down: each connection is told, and a stream would
            // otherwise be cut at the end of the drain, mid-chunk, with no word of why. One handler
            // per connection, so it ends every stream the connection carries.
            HttpConnection connection = ctx.request().connection();
            open.add(this);
            connection.shutdownHandler(v -> open.stream().filter(s -> s.connection() == connection).toList()
                    .forEach(Stream::stopping));
            // A comment, not an event: tells the client the watch is on and what it watches.
            write(": watching " + json("watching").encode() + "\n\n");
            poll = LeasePoll.join(polls, issuer, context, last, timeout.toMillis(), this);
        }

        @Override
        public Context context() {
            return context;
        }

        @Override
        public void alive(Lease now) {
            if (done) {
                return;
            }
            if (now.expiresAt() > last.expiresAt() + RENEW_JITTER_MS) {
                last = now;
                event("renewed", json("renewed"));
            } else {
                heartbeat(": alive\n\n");
            }
        }

        @Override
        public void unavailable() {
            if (!done) {
                // The issuer is unreachable from here: we cannot say the lease ended. The poll keeps asking.
                heartbeat(": issuer unavailable\n\n");
            }
        }

        @Override
        public void ended(String name, long endedAt, Lease lease) {
            if (done) {
                return;
            }
            last = lease;
            event(name, json(name).put("endedAt", endedAt));
            finish();
            response.end();
        }

        HttpConnection connection() {
            return ctx.request().connection();
        }

        private void stopping() {
            if (!done) {
                event("stopping", json("stopping").put("message", STOPPING));
                finish();
                response.end();
            }
        }

        private JsonObject json(String event) {
            return new JsonObject().put("event", event).put("leaseId", last.leaseId()).put("lock", last.lock())
                    .put("token", last.token()).put("expiresAt", last.expiresAt());
        }

        private void event(String name, JsonObject data) {
            write("event: " + name + "\ndata: " + data.encode() + "\n\n");
        }

        private void heartbeat(String comment) {
            if (System.currentTimeMillis() - lastWriteMs >= heartbeatMs && !response.writeQueueFull()) {
                write(comment);
            }
        }

        private void write(String text) {
            lastWriteMs = System.currentTimeMillis();
            response.write(text);
        }

        private void finish() {
            if (!done) {
                done = true;
                open.remove(this);
                giveBack.run();
                if (poll != null) {
                    poll.leave(this);
                }
            }
        }
    }
}
