package io.fencegate.client;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A client for the fencegate gateway's HTTP API. Thread-safe; build one and share it.
 *
 * <p>Expected outcomes are results, not exceptions: a held lock is an empty {@code acquire}, a gone
 * lease an empty {@code renew} / {@code false} {@code release}, a refused token a {@link Stale}. Any
 * other error completes the future with a {@link FencegateException}; transport failures and timeouts
 * with an {@link IOException}: {@link java.net.http.HttpTimeoutException} for a timeout,
 * {@link java.net.http.HttpConnectTimeoutException} or {@link java.net.ConnectException} when no
 * connection was made (nothing was sent). The blocking methods throw the same, an {@code IOException}
 * wrapped in an {@link UncheckedIOException}. Every call is bounded by the request timeout
 * ({@code acquire} by the timeout plus its wait).
 *
 * <p>HTTP runs on Apache HttpClient 5 (kept-alive connections, blocking I/O), or on a JDK
 * {@link HttpClient} given to {@link Builder#httpClient}. A blocking method makes its exchange on the
 * calling thread. An asynchronous one makes it on one of the client's own threads, where its future
 * completes: a dependent stage may block, even on another call of this client.
 */
public final class FencegateClient {
    /** How the gateway's problem type for "no such store" ends (e.g. {@code urn:fencegate:problem:unknown-store}). */
    public static final String UNKNOWN_STORE_SUFFIX = "unknown-store";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final Duration timeout;
    private final Exchanges exchanges;
    /** Null unless {@link Builder#batchWrites} asked for it. */
    private final WriteBatches batches;

    private FencegateClient(Builder b) {
        String uri = b.baseUri.toString();
        URI base = URI.create(uri.endsWith("/") ? uri : uri + "/");
        String authorization = b.apiKey == null ? null : "Bearer " + b.apiKey;
        this.timeout = b.timeout;
        this.exchanges = new Exchanges(b.httpClient != null
                ? new JdkTransport(b.httpClient, base, authorization)
                : new ApacheTransport(base, authorization, b.timeout));
        this.batches = b.maxBatch == 0 ? null : new WriteBatches(b.maxBatch, b.maxBatchBytes, b.maxQueued, this::sendWrites);
    }

    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    public static Builder builder(String baseUri) {
        return new Builder(URI.create(baseUri));
    }

    // ---- leases ------------------------------------------------------------------------------

    /** Acquires {@code lock}, waiting up to {@code wait}; empty if it is still held then (423). */
    public CompletableFuture<Optional<Lease>> acquireAsync(String lock, Duration ttl, Duration wait) {
        return acquireAsync(lock, LeaseMode.WRITE, ttl, wait);
    }

    /**
     * Acquires {@code lock} in {@code mode}, waiting up to {@code wait}; empty if it is still held
     * then (423). Read leases share the lock with each other, never with a write lease; once a write
     * acquire waits, later read acquires wait behind it. A read lease's token makes fenced reads and
     * is refused on every write (403). An issuer that does not keep read leases yet answers 501
     * ({@link FencegateException}).
     */
    public CompletableFuture<Optional<Lease>> acquireAsync(String lock, LeaseMode mode, Duration ttl, Duration wait) {
        return async(acquiring(lock, Objects.requireNonNull(mode, "mode"), 0, ttl, wait));
    }

    /**
     * Acquires one of the {@code permits} permits of the fenced semaphore {@code semaphore}, waiting
     * up to {@code wait}; empty if none was free then (423). The permit is a write lease on the lock
     * of the slot it took ({@link Lease#slot()}, {@link Lease#lock()} = {@code {semaphore}/{slot}}):
     * its token guards what that slot's lock guards. Every acquire of one semaphore names the same
     * count: the gateway refuses another (400).
     */
    public CompletableFuture<Optional<Lease>> acquirePermitAsync(String semaphore, int permits, Duration ttl, Duration wait) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        return async(acquiring(semaphore, LeaseMode.WRITE, permits, ttl, wait));
    }

    /** Extends the lease to now + its ttl; empty if the lease is gone (410). */
    public CompletableFuture<Optional<Instant>> renewAsync(String leaseId) {
        return async(renewing(leaseId));
    }

    /** Releases the lease; false if it was already gone (410). */
    public CompletableFuture<Boolean> releaseAsync(String leaseId) {
        return async(releasing(leaseId));
    }

    /**
     * Keeps {@code lease} alive until {@link LeaseKeepAlive#close()}: renews it at once and then every
     * {@code ttl}/3, and calls {@code onLost} exactly once if the gateway answers 410, refuses a
     * renewal for good, or {@code ttl} passes without a confirmed renewal (the gateway unreachable, this
     * process paused). {@code ttl} is the one the lease was acquired with.
     */
    public LeaseKeepAlive keepAlive(Lease lease, Duration ttl, LeaseLostListener onLost) {
        return LeaseKeepAlive.start(this, Objects.requireNonNull(lease, "lease"), Objects.requireNonNull(ttl, "ttl"), onLost);
    }

    /**
     * Acquires {@code lock} (waiting up to {@code wait}), runs {@code work} under a keep-alive and
     * releases the lease however the work ends: returns its result, or rethrows what it threw. Empty
     * if the lock was still held after {@code wait}. The work should check {@link LeaseKeepAlive#held()}
     * (or react to {@link LeaseKeepAlive#lost()}) between steps and stop when the lease is gone; its
     * writes carry {@link LeaseKeepAlive#token()}, so a write it makes too late is refused anyway.
     */
    public <T, E extends Exception> Optional<T> withLease(String lock, Duration ttl, Duration wait, LeaseWork<T, E> work)
            throws E {
        return withLease(lock, LeaseMode.WRITE, ttl, wait, work);
    }

    /** {@link #withLease(String, Duration, Duration, LeaseWork)} in {@code mode} ({@link #acquireAsync(String, LeaseMode, Duration, Duration)}). */
    public <T, E extends Exception> Optional<T> withLease(String lock, LeaseMode mode, Duration ttl, Duration wait,
            LeaseWork<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        return withHeld(acquire(lock, mode, ttl, wait), ttl, work);
    }

    /**
     * {@link #withLease} for one permit of the fenced semaphore {@code semaphore}
     * ({@link #acquirePermit}): the work sees the permit's slot ({@link LeaseKeepAlive#slot()}) and
     * token; the permit is kept alive and released however the work ends. Empty if no permit was free
     * after {@code wait}.
     */
    public <T, E extends Exception> Optional<T> withPermit(String semaphore, int permits, Duration ttl, Duration wait,
            LeaseWork<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        return withHeld(acquirePermit(semaphore, permits, ttl, wait), ttl, work);
    }

    private <T, E extends Exception> Optional<T> withHeld(Optional<Lease> lease, Duration ttl, LeaseWork<T, E> work)
            throws E {
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        LeaseKeepAlive keepAlive = keepAlive(lease.get(), ttl, null);
        return runThenRelease(() -> work.run(keepAlive), keepAlive::release);
    }

    /** The work's result; the hold is released however the work ends, a failed release kept beside its failure. */
    private static <T, E extends Exception> Optional<T> runThenRelease(HeldWork<T, E> work, Runnable release) throws E {
        T result;
        try {
            result = work.run();
        } catch (Throwable failed) {
            try {
                release.run();
            } catch (RuntimeException releaseFailed) {
                failed.addSuppressed(releaseFailed);
            }
            throw failed;
        }
        release.run();
        return Optional.ofNullable(result);
    }

    /** Work done while a lease or a group is held. */
    private interface HeldWork<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Acquires every lock in {@code locks} or none (the gateway takes them in one canonical order,
     * within one overall {@code wait}, and releases what it took if one stays held): empty if a
     * lock was still held after {@code wait} (423). Renew, release or watch the group by its
     * {@link LeaseGroup#groupId()}, as a lease id.
     */
    public CompletableFuture<Optional<LeaseGroup>> acquireAllAsync(List<String> locks, Duration ttl, Duration wait) {
        return async(acquiringAll(locks, ttl, wait));
    }

    public Optional<LeaseGroup> acquireAll(List<String> locks, Duration ttl, Duration wait) {
        return blocking(acquiringAll(locks, ttl, wait));
    }

    /**
     * {@link #withLease} for several locks: acquires them all or none ({@link #acquireAll}), runs
     * {@code work} while the group is kept alive as one lease, and releases every member however
     * the work ends. Empty if a lock was still held after {@code wait}. Losing any member loses the
     * group and is reported as a lease's loss is ({@link LeaseGroupKeepAlive#held()},
     * {@link LeaseGroupKeepAlive#lost()}); each write carries its own lock's token
     * ({@link LeaseGroupKeepAlive#token(String)}).
     */
    public <T, E extends Exception> Optional<T> withLeases(List<String> locks, Duration ttl, Duration wait,
            LeaseGroupWork<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        Optional<LeaseGroup> group = acquireAll(locks, ttl, wait);
        if (group.isEmpty()) {
            return Optional.empty();
        }
        LeaseGroup g = group.get();
        // The group renews and releases by its id like one lease; its first member stands for it
        // inside the keep-alive (the ttl's start is the acquire's send, taken for every member).
        Lease first = g.leases().get(0);
        Lease asOne = new Lease(first.lock(), g.groupId(), first.token(), g.expiresAt(), first.startedAtNanos());
        LeaseGroupKeepAlive keepAlive = new LeaseGroupKeepAlive(g, keepAlive(asOne, ttl, null));
        return runThenRelease(() -> work.run(keepAlive), keepAlive::release);
    }

    // ---- items -------------------------------------------------------------------------------

    /** Writes {@code value} to {@code key} if {@code token} passes the store's guard. */
    public CompletableFuture<WriteOutcome> putAsync(String store, String key, long token, byte[] value) {
        if (batches != null) {
            putting(store, key, token, value); // the same argument checks, thrown here
            return batches.submit(store, key, token, value);
        }
        return async(putting(store, key, token, value));
    }

    /** Deletes {@code key} (the store keeps a tombstone with the token). */
    public CompletableFuture<WriteOutcome> deleteAsync(String store, String key, long token) {
        if (batches != null) {
            deleting(store, key, token);
            return batches.submit(store, key, token, null);
        }
        return async(deleting(store, key, token));
    }

    /** A plain read: never refused, claims nothing. Use {@link #getAsync(String, String, long)} to read-modify-write. */
    public CompletableFuture<ReadOutcome> getAsync(String store, String key) {
        return async(reading(HttpCall.of("GET", itemPath(store, key), timeout), 0));
    }

    /**
     * A fenced read: raises the item's fence to {@code token}, so no lower token can write it any more;
     * {@link Stale} if a higher token got there first. A missing item is claimed too.
     */
    public CompletableFuture<ReadOutcome> getAsync(String store, String key, long token) {
        return async(reading(HttpCall.of("GET", itemPath(store, key), timeout).fenced(token), token));
    }

    /** Runs the store's named statement in one transaction with the guard row of {@code key}. */
    public CompletableFuture<StatementOutcome> statementAsync(
            String store, String name, long token, String key, Map<String, ?> params) {
        return async(statementOf(store, name, token, key, params));
    }

    /** A transaction across items of {@code store}: add puts and deletes, then {@link Transaction#commit}. */
    public Transaction transaction(String store) {
        return new Transaction(this, store);
    }

    /**
     * Fenced reads of several items in one call, each with its own token: every item's fence is
     * raised to its token and the items are answered ({@link ClaimOutcome.Claimed}), or, if any item
     * has a higher fence, none is ({@link Refused}). {@code tokens}: key to token, in the order wanted.
     */
    public CompletableFuture<ClaimOutcome> getAllAsync(String store, Map<String, Long> tokens) {
        return async(readingAll(store, tokens));
    }

    // ---- blocking conveniences: the exchange runs on the caller's thread ----------------------

    public Optional<Lease> acquire(String lock, Duration ttl, Duration wait) {
        return acquire(lock, LeaseMode.WRITE, ttl, wait);
    }

    public Optional<Lease> acquire(String lock, LeaseMode mode, Duration ttl, Duration wait) {
        return blocking(acquiring(lock, Objects.requireNonNull(mode, "mode"), 0, ttl, wait));
    }

    public Optional<Lease> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        return blocking(acquiring(semaphore, LeaseMode.WRITE, permits, ttl, wait));
    }

    public Optional<Instant> renew(String leaseId) {
        return blocking(renewing(leaseId));
    }

    public boolean release(String leaseId) {
        return blocking(releasing(leaseId));
    }

    public WriteOutcome put(String store, String key, long token, byte[] value) {
        return batches != null ? awaited(putAsync(store, key, token, value)) : blocking(putting(store, key, token, value));
    }

    public WriteOutcome delete(String store, String key, long token) {
        return batches != null ? awaited(deleteAsync(store, key, token)) : blocking(deleting(store, key, token));
    }

    public ReadOutcome get(String store, String key) {
        return blocking(reading(HttpCall.of("GET", itemPath(store, key), timeout), 0));
    }

    public ReadOutcome get(String store, String key, long token) {
        return blocking(reading(HttpCall.of("GET", itemPath(store, key), timeout).fenced(token), token));
    }

    public StatementOutcome statement(String store, String name, long token, String key, Map<String, ?> params) {
        return blocking(statementOf(store, name, token, key, params));
    }

    public ClaimOutcome getAll(String store, Map<String, Long> tokens) {
        return blocking(readingAll(store, tokens));
    }

    TransactionOutcome commit(String store, List<Transaction.Item> items) {
        return blocking(committing(store, items));
    }

    CompletableFuture<TransactionOutcome> commitAsync(String store, List<Transaction.Item> items) {
        return async(committing(store, items));
    }

    // ---- the calls: what is sent, and how the answer reads --------------------------------------

    /** One call of the API: the request, and how its answer becomes a result (or an exception). */
    private record Op<T>(HttpCall call, Function<HttpAnswer, T> read) {}

    private <T> CompletableFuture<T> async(Op<T> op) {
        return exchanges.async(op.call(), op.read());
    }

    private <T> T blocking(Op<T> op) {
        return exchanges.blocking(op.call(), op.read());
    }

    /**
     * A batched write's result, thrown as the blocking call throws it: the same exception, an
     * {@code IOException} wrapped in an {@link UncheckedIOException}.
     */
    private static <T> T awaited(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            if (cause instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw e;
        }
    }

    /**
     * One batch of {@link WriteBatches}: a lone write as its plain PUT or DELETE; more as one
     * {@code POST /v1/stores/{store}/writes}, each write's result read from its entry exactly as from
     * its own answer. A batch refused as a whole with a 4xx wrote nothing (the gateway's contract):
     * each write then goes alone and gets its own answer. A 5xx or a transport failure fails every
     * write of the batch with it, as it would a lone write (it may have applied).
     */
    private CompletableFuture<?> sendWrites(String store, List<WriteBatches.Write> batch) {
        if (batch.size() == 1) {
            WriteBatches.Write w = batch.get(0);
            return async(w.value() == null ? deleting(store, w.key(), w.token()) : putting(store, w.key(), w.token(), w.value()))
                    .whenComplete((outcome, failure) -> {
                        if (failure == null) {
                            w.answer().complete(outcome);
                        } else {
                            w.answer().completeExceptionally(failure);
                        }
                    });
        }
        ObjectNode body = JSON.createObjectNode();
        ArrayNode writes = body.putArray("writes");
        for (WriteBatches.Write w : batch) {
            ObjectNode write = writes.addObject().put("op", w.value() == null ? "delete" : "put").put("key", w.key())
                    .put("token", w.token());
            if (w.value() != null) {
                write.put("valueBase64", Base64.getEncoder().encodeToString(w.value()));
            }
        }
        HttpCall call = HttpCall.of("POST", "v1/stores/" + KeyPaths.segment(store) + "/writes", timeout)
                .body("application/json", bytes(body));
        return exchanges.async(call, r -> answerBatch(store, batch, r)).thenCompose(answered -> answered);
    }

    private CompletableFuture<Void> answerBatch(String store, List<WriteBatches.Write> batch, HttpAnswer r) {
        if (r.status() >= 400 && r.status() < 500) {
            return CompletableFuture.allOf(batch.stream()
                    .map(w -> sendWrites(store, List.of(w)).handle((v, e) -> null)).toArray(CompletableFuture[]::new));
        }
        if (r.status() != 200) {
            throw problem(r);
        }
        JsonNode results = json(r).path("results");
        if (!results.isArray() || results.size() != batch.size()) {
            throw new FencegateException(r.status(), "about:blank", "unreadable response",
                    "a batch of " + batch.size() + " writes answered with no list of as many results: " + text(r));
        }
        for (int i = 0; i < batch.size(); i++) {
            WriteBatches.Write w = batch.get(i);
            JsonNode result = results.get(i);
            int status = result.path("status").asInt();
            HttpAnswer own = new HttpAnswer(status, status >= 400 ? "application/problem+json" : "application/json", "",
                    bytes(result.path("body")));
            try {
                w.answer().complete(writeOutcome(own, w.token()));
            } catch (RuntimeException e) { // as the lone write's future fails: a CompletionException around it
                w.answer().completeExceptionally(new java.util.concurrent.CompletionException(e));
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /** {@code permits} 0: a lease in {@code mode}; otherwise a permit of the semaphore {@code lock}. */
    private Op<Optional<Lease>> acquiring(String lock, LeaseMode mode, int permits, Duration ttl, Duration wait) {
        ObjectNode body = JSON.createObjectNode()
                .put("lock", lock).put("ttlMs", ttl.toMillis()).put("waitMs", wait.toMillis());
        // The default shape is sent as before, so a gateway that predates modes takes it.
        if (permits > 0) {
            body.put("permits", permits);
        } else if (mode != LeaseMode.WRITE) {
            body.put("mode", mode.wireName());
        }
        // The gateway may legitimately hold the request for `wait`: the bound is wait + timeout.
        HttpCall call = HttpCall.of("POST", "v1/leases", timeout.plus(wait)).body("application/json", bytes(body));
        // Taken just before the request goes out (a retry only makes it earlier than the real send):
        // the keep-alive's first deadline counts from it.
        long sentAt = System.nanoTime();
        return new Op<>(call, r -> switch (r.status()) {
            case 201 -> {
                JsonNode j = json(r);
                yield Optional.of(new Lease(j.path("lock").asText(lock), j.path("leaseId").asText(),
                        j.path("token").asLong(), Instant.ofEpochMilli(j.path("expiresAt").asLong()), sentAt,
                        LeaseMode.fromWire(j.path("mode").asText(mode.wireName())), j.path("slot").asInt(Lease.NO_SLOT)));
            }
            case 423 -> Optional.<Lease>empty();
            default -> throw problem(r);
        });
    }

    private Op<Optional<LeaseGroup>> acquiringAll(List<String> locks, Duration ttl, Duration wait) {
        ObjectNode body = JSON.createObjectNode().put("ttlMs", ttl.toMillis()).put("waitMs", wait.toMillis());
        body.putArray("locks").addAll(Objects.requireNonNull(locks, "locks").stream()
                .map(JSON.getNodeFactory()::textNode).toList());
        // A group's locks are taken one after another: the gateway may hold the request for the wait
        // and then some; the bound is the wait plus one timeout per lock.
        HttpCall call = HttpCall.of("POST", "v1/leases", timeout.multipliedBy(Math.max(1, locks.size())).plus(wait))
                .body("application/json", bytes(body));
        long sentAt = System.nanoTime();
        return new Op<>(call, r -> switch (r.status()) {
            case 201 -> {
                JsonNode j = json(r);
                java.util.List<Lease> leases = new java.util.ArrayList<>();
                for (JsonNode m : j.path("leases")) {
                    leases.add(new Lease(m.path("lock").asText(), m.path("leaseId").asText(), m.path("token").asLong(),
                            Instant.ofEpochMilli(m.path("expiresAt").asLong()), sentAt));
                }
                yield Optional.of(new LeaseGroup(j.path("groupId").asText(), leases));
            }
            case 423 -> Optional.<LeaseGroup>empty();
            default -> throw problem(r);
        });
    }

    private Op<Optional<Instant>> renewing(String leaseId) {
        return new Op<>(HttpCall.of("POST", "v1/leases/" + KeyPaths.segment(leaseId) + "/renew", timeout),
                r -> switch (r.status()) {
                    case 200 -> Optional.of(Instant.ofEpochMilli(json(r).path("expiresAt").asLong()));
                    case 410 -> Optional.<Instant>empty();
                    default -> throw problem(r);
                });
    }

    private Op<Boolean> releasing(String leaseId) {
        return new Op<>(HttpCall.of("DELETE", "v1/leases/" + KeyPaths.segment(leaseId), timeout),
                r -> switch (r.status()) {
                    case 204, 200 -> true;
                    case 410 -> false;
                    default -> throw problem(r);
                });
    }

    private Op<WriteOutcome> putting(String store, String key, long token, byte[] value) {
        HttpCall call = HttpCall.of("PUT", itemPath(store, key), timeout).fenced(token)
                .body("application/octet-stream", Objects.requireNonNull(value, "value"));
        return new Op<>(call, r -> writeOutcome(r, token));
    }

    private Op<WriteOutcome> deleting(String store, String key, long token) {
        return new Op<>(HttpCall.of("DELETE", itemPath(store, key), timeout).fenced(token), r -> writeOutcome(r, token));
    }

    private Op<StatementOutcome> statementOf(String store, String name, long token, String key, Map<String, ?> params) {
        ObjectNode body = JSON.createObjectNode().put("key", key);
        body.set("params", JSON.valueToTree(params == null ? Map.of() : params));
        HttpCall call = HttpCall.of("POST", "v1/stores/" + KeyPaths.segment(store) + "/statements/"
                + KeyPaths.segment(name), timeout).fenced(token).body("application/json", bytes(body));
        return new Op<>(call, r -> switch (r.status()) {
            case 200 -> {
                Map<String, Object> m = JSON.convertValue(json(r), MAP);
                Object rows = m.get("rows");
                yield new StatementOutcome.Executed(token, rows instanceof Number n ? n.longValue() : 0, m);
            }
            case 409 -> stale(r, token);
            default -> throw problem(r);
        });
    }

    private Op<TransactionOutcome> committing(String store, List<Transaction.Item> items) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode ops = body.putArray("ops");
        for (Transaction.Item item : items) {
            ObjectNode op = ops.addObject().put("op", item.value() == null ? "delete" : "put")
                    .put("key", item.key()).put("token", item.token());
            if (item.value() != null) {
                op.put("valueBase64", Base64.getEncoder().encodeToString(item.value()));
            }
        }
        HttpCall call = HttpCall.of("POST", "v1/stores/" + KeyPaths.segment(store) + "/transactions", timeout)
                .body("application/json", bytes(body));
        return new Op<>(call, r -> switch (r.status()) {
            case 200 -> {
                Map<String, WriteOutcome.Applied> applied = new LinkedHashMap<>();
                for (JsonNode item : json(r).path("items")) {
                    applied.put(item.path("key").asText(),
                            new WriteOutcome.Applied(item.path("token").asLong(), item.path("previousToken").asLong()));
                }
                yield new TransactionOutcome.Committed(applied);
            }
            case 409 -> refused(r);
            default -> throw problem(r);
        });
    }

    private Op<ClaimOutcome> readingAll(String store, Map<String, Long> tokens) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode items = body.putArray("items");
        tokens.forEach((key, token) -> items.addObject().put("key", key).put("token", token));
        HttpCall call = HttpCall.of("POST", "v1/stores/" + KeyPaths.segment(store) + "/fenced-reads", timeout)
                .body("application/json", bytes(body));
        return new Op<>(call, r -> switch (r.status()) {
            case 200 -> {
                Map<String, ReadOutcome> read = new LinkedHashMap<>();
                for (JsonNode item : json(r).path("items")) {
                    read.put(item.path("key").asText(), item.path("found").asBoolean()
                            ? new ReadOutcome.Value(Base64.getDecoder().decode(item.path("valueBase64").asText()),
                                    item.path("token").asLong())
                            : new ReadOutcome.NotFound());
                }
                yield new ClaimOutcome.Claimed(read);
            }
            case 409 -> refused(r);
            default -> throw problem(r);
        });
    }

    /** A 409 of a transaction or multi-read: every refused item ({@code refused}); any other 409 is a problem. */
    private static Refused refused(HttpAnswer r) {
        JsonNode refused = json(r).path("refused");
        if (!refused.isArray() || refused.isEmpty()) {
            throw problem(r);
        }
        Map<String, Stale> items = new LinkedHashMap<>();
        for (JsonNode item : refused) {
            long current = item.path("currentToken").asLong();
            items.put(item.path("key").asText(), new Stale(current, item.path("fence").asLong(current), item.path("token").asLong()));
        }
        return new Refused(items);
    }

    private static Op<ReadOutcome> reading(HttpCall call, long token) {
        return new Op<>(call, r -> switch (r.status()) {
            case 200 -> new ReadOutcome.Value(r.body(), r.fencingToken().isEmpty() ? 0L : Long.parseLong(r.fencingToken()));
            case 404 -> isProblem(r) && !notFoundItem(r) ? throwing(problem(r)) : new ReadOutcome.NotFound();
            case 409 -> stale(r, token);
            default -> throw problem(r);
        });
    }

    // ---- reading answers -----------------------------------------------------------------------

    private static String itemPath(String store, String key) {
        return "v1/stores/" + KeyPaths.segment(store) + "/items/" + KeyPaths.key(key);
    }

    /**
     * A 404 for an unknown store must not read as a missing item: the gateway marks it with a problem
     * type ending in {@link #UNKNOWN_STORE_SUFFIX}; any other 404 is the item.
     */
    private static boolean notFoundItem(HttpAnswer r) {
        return !problemJson(r).path("type").asText("").endsWith(UNKNOWN_STORE_SUFFIX);
    }

    private static <T> T throwing(RuntimeException e) {
        throw e;
    }

    private static WriteOutcome writeOutcome(HttpAnswer r, long token) {
        return switch (r.status()) {
            case 200 -> {
                JsonNode j = json(r);
                yield new WriteOutcome.Applied(j.path("token").asLong(token), j.path("previousToken").asLong());
            }
            case 409 -> stale(r, token);
            default -> throw problem(r);
        };
    }

    private static Stale stale(HttpAnswer r, long token) {
        JsonNode j = json(r);
        long current = j.path("currentToken").asLong();
        return new Stale(current, j.path("fence").asLong(current), token);
    }

    private static JsonNode json(HttpAnswer r) {
        try {
            return r.body().length == 0 ? JSON.createObjectNode() : JSON.readTree(r.body());
        } catch (IOException e) {
            throw new FencegateException(r.status(), "about:blank", "unreadable response",
                    "not JSON: " + text(r));
        }
    }

    private static boolean isProblem(HttpAnswer r) {
        return r.contentType().startsWith("application/problem+json");
    }

    private static JsonNode problemJson(HttpAnswer r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static FencegateException problem(HttpAnswer r) {
        if (isProblem(r)) {
            JsonNode j = problemJson(r);
            return new FencegateException(r.status(), j.path("type").asText("about:blank"),
                    j.path("title").asText(null), j.path("detail").asText(null));
        }
        return new FencegateException(r.status(), "about:blank", null, text(r));
    }

    private static String text(HttpAnswer r) {
        String s = new String(r.body(), StandardCharsets.UTF_8);
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Options for a {@link FencegateClient}. */
    public static final class Builder {
        private final URI baseUri;
        private String apiKey;
        private Duration timeout = Duration.ofSeconds(10);
        private HttpClient httpClient;
        private int maxBatch;
        private long maxBatchBytes;
        private int maxQueued;

        private Builder(URI baseUri) {
            this.baseUri = Objects.requireNonNull(baseUri, "baseUri");
        }

        /** Sent as {@code Authorization: Bearer <key>} on every call. */
        public Builder apiKey(String apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** Bound on every call (connect and response); default 10 s. */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * A JDK client to use instead of the default Apache HttpClient 5 transport (for its proxy, TLS
         * or executor settings). It costs more CPU a request (docs/PERFORMANCE.md, "Performance: where a request's time goes"), and its
         * request timeout ends at the response's headers: a body trickling in is not cut off by it.
         */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /**
         * Batches writes in flight ({@code put}, {@code delete} and their async forms) with
         * {@link #batchWrites(int, long, int) the defaults}: 256 writes or 512 KiB a batch, 10 000 queued a store.
         */
        public Builder batchWrites() {
            return batchWrites(256, 512 * 1024, 10_000);
        }

        /**
         * Batches writes in flight, per store: a write made while a batch of its store is on the wire
         * waits and goes with the next batch ({@code POST /v1/stores/{store}/writes}), up to
         * {@code maxBatch} writes and about {@code maxBatchBytes} of body; a write made while none is,
         * goes at once, alone, as a plain PUT or DELETE. Each write's result is what it would have
         * been sent alone. A write that finds {@code maxQueued} writes of its store waiting fails at
         * once with a {@link java.util.concurrent.RejectedExecutionException}, nothing sent. Off by
         * default: it needs a gateway with the batch route (an older one answers each batch 404, and
         * every write is then sent again alone), and a 5xx or a lost connection fails a whole batch.
         */
        public Builder batchWrites(int maxBatch, long maxBatchBytes, int maxQueued) {
            if (maxBatch < 1 || maxBatch > 1000 || maxBatchBytes < 1 || maxQueued < 1) {
                throw new IllegalArgumentException("batchWrites: maxBatch must be 1..1000, maxBatchBytes and maxQueued positive;"
                        + " got " + maxBatch + ", " + maxBatchBytes + ", " + maxQueued);
            }
            this.maxBatch = maxBatch;
            this.maxBatchBytes = maxBatchBytes;
            this.maxQueued = maxQueued;
            return this;
        }

        public FencegateClient build() {
            return new FencegateClient(this);
        }
    }
}
