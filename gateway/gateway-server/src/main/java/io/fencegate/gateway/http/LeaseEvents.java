package io.fencegate.gateway.http;

import io.fencegate.gateway.auth.Principal;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseGroupIds;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    private final MultiLock multi;
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
        this.multi = new MultiLock(issuer);
        this.shares = shares;
        this.timeout = timeout;
        // Under the server's idle timeout (twice the request timeout): an idle stream is not cut.
        this.heartbeatMs = Math.max(1000, timeout.toMillis());
    }

    void watch(RoutingContext ctx) {
        String leaseId = ctx.pathParam("leaseId");
        if (LeaseGroupIds.isGroupId(leaseId)) {
            watchGroup(ctx, leaseId);
            return;
        }
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
            new Stream(ctx, List.of(lease), null, giveBack).start();
        }).onFailure(e -> {
            giveBack.run();
            ctx.fail(e);
        });
    }

    /**
     * A group's watch: one stream, told by the poll of each member; the first member to end ends
     * the group, and the stream says which and how. Authorized by every member's lock, before the read.
     */
    private void watchGroup(RoutingContext ctx, String groupId) {
        Optional<List<String>> named = multi.locksOf(groupId);
        if (named.isPresent() && !GroupLeaseRoutes.allowed(ctx, named.get())) {
            return;
        }
        // Every member is read, so every member counts among the key's watched leases.
        List<String> members = LeaseGroupIds.parse(groupId).orElse(List.of(groupId));
        String bucket = shares.bucket(ctx);
        Problem refused = shares.startWatch(bucket, members);
        if (refused != null) {
            ctx.fail(refused);
            return;
        }
        Runnable giveBack = () -> shares.endWatch(bucket, members);
        call(ctx, multi.find(groupId)).onSuccess(found -> {
            if (found.isEmpty()) {
                giveBack.run();
                LeaseAccess.gone(ctx);
                return;
            }
            LeaseGroup group = found.get();
            for (String lock : group.locks()) {
                if (!Principal.of(ctx).mayUseLock(lock)) {
                    giveBack.run();
                    ctx.fail(LeaseAccess.forbidden(lock));
                    return;
                }
            }
            long unwatched = group.leases().stream().filter(l -> !polls.containsKey(l.leaseId())).count();
            if (unwatched > 0 && polls.size() + unwatched > MAX_LEASES) {
                giveBack.run();
                ctx.fail(Problem.unavailable("this gateway already watches " + MAX_LEASES + " leases").retryAfter(5));
                return;
            }
            new Stream(ctx, group.leases(), groupId, giveBack).start();
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

    /**
     * One open stream: told by its lease's poll until the lease ends or the client goes away. A
     * group's stream is told by each member's poll: the group renews when its earliest expiry moves
     * on, and ends with the first member that ends.
     */
    private final class Stream {
        private final RoutingContext ctx;
        /** Gives the key's share back, once, when the stream ends. */
        private final Runnable giveBack;
        private final HttpServerResponse response;
        private final Context context;
        /** The group's id; null for a single lease's stream. */
        private final String groupId;
        /** The latest reported state of each member (one for a single lease). */
        private final Lease[] members;
        private final List<LeasePoll> joined = new ArrayList<>();
        private final List<Member> watchers = new ArrayList<>();
        /** The expiry the stream last told (the earliest member's). */
        private long told;
        private long lastWriteMs;
        private boolean done;

        Stream(RoutingContext ctx, List<Lease> leases, String groupId, Runnable giveBack) {
            this.ctx = ctx;
            this.giveBack = giveBack;
            this.response = ctx.response();
            this.context = ctx.vertx().getOrCreateContext();
            this.groupId = groupId;
            this.members = leases.toArray(Lease[]::new);
            this.told = expiresAt();
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
            for (int i = 0; i < members.length && !done; i++) {
                Member member = new Member(i);
                watchers.add(member);
                joined.add(LeasePoll.join(polls, issuer, context, members[i], timeout.toMillis(), member));
            }
        }

        /** One member's poll, as the stream hears it. */
        private final class Member implements LeasePoll.Watcher {
            private final int index;

            Member(int index) {
                this.index = index;
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
                if (now.expiresAt() > members[index].expiresAt() + RENEW_JITTER_MS) {
                    members[index] = now;
                }
                if (expiresAt() > told) {
                    told = expiresAt();
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
                members[index] = lease;
                JsonObject data = json(name).put("endedAt", endedAt);
                if (groupId != null) {
                    // Which member ended the group, and how.
                    data.put("lock", lease.lock()).put("leaseId", lease.leaseId());
                }
                event(name, data);
                finish();
                response.end();
            }
        }

        HttpConnection connection() {
            return ctx.request().connection();
        }

        private long expiresAt() {
            long earliest = Long.MAX_VALUE;
            for (Lease member : members) {
                earliest = Math.min(earliest, member.expiresAt());
            }
            return earliest;
        }

        private void stopping() {
            if (!done) {
                event("stopping", json("stopping").put("message", STOPPING));
                finish();
                response.end();
            }
        }

        private JsonObject json(String event) {
            if (groupId == null) {
                Lease last = members[0];
                JsonObject data = new JsonObject().put("event", event).put("leaseId", last.leaseId()).put("lock", last.lock())
                        .put("token", last.token()).put("expiresAt", last.expiresAt()).put("mode", last.mode().wireName());
                return last.isPermit() ? data.put("slot", last.slot()) : data;
            }
            return GroupLeaseRoutes.json(new LeaseGroup(List.of(members))).put("event", event);
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
                for (int i = 0; i < joined.size(); i++) {
                    joined.get(i).leave(watchers.get(i));
                }
            }
        }
    }
}
