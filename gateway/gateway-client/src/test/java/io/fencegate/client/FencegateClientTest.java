package io.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client against a stub HTTP server: what it sends, and how it reads each answer of the contract.
 * On the default transport (Apache HttpClient 5); {@link FencegateClientJdkTransportTest} runs the same
 * tests on a JDK HttpClient.
 */
@Timeout(20)
class FencegateClientTest {
    /** One canned answer; the stub replays them in order and records every request. */
    record Answer(int status, String contentType, byte[] body, Map<String, String> headers) {
        static Answer json(int status, String body) {
            return new Answer(status, "application/json", body.getBytes(StandardCharsets.UTF_8), Map.of());
        }

        static Answer problem(int status, String type) {
            String body = "{\"type\":\"" + type + "\",\"title\":\"t\",\"status\":" + status + ",\"detail\":\"d\"}";
            return new Answer(status, "application/problem+json", body.getBytes(StandardCharsets.UTF_8), Map.of());
        }
    }

    record Seen(String method, String rawPath, Map<String, String> headers, byte[] body) {}

    private HttpServer server;
    private final BlockingQueue<Answer> answers = new LinkedBlockingQueue<>();
    private final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
    private FencegateClient client;
    private volatile long answerDelayMs;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
        client = builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .apiKey("k3y").timeout(Duration.ofSeconds(2)).build();
    }

    /** A builder on the transport under test. */
    FencegateClient.Builder builder(URI base) {
        return FencegateClient.builder(base);
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        Map<String, String> h = new java.util.HashMap<>();
        ex.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(), v.get(0)));
        seen.add(new Seen(ex.getRequestMethod(), ex.getRequestURI().getRawPath(), h,
                ex.getRequestBody().readAllBytes()));
        Answer a = answers.poll();
        if (answerDelayMs > 0) {
            try {
                Thread.sleep(answerDelayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (a == null) {
            return; // no answer: the client must time out by itself
        }
        if (a.contentType() != null) {
            ex.getResponseHeaders().add("Content-Type", a.contentType());
        }
        a.headers().forEach(ex.getResponseHeaders()::add);
        ex.sendResponseHeaders(a.status(), a.body().length == 0 ? -1 : a.body().length);
        ex.getResponseBody().write(a.body());
        ex.close();
    }

    private Seen lastRequest() throws InterruptedException {
        return seen.poll(5, TimeUnit.SECONDS);
    }

    @Test
    void acquireSendsLockTtlWaitAndBearerKeyAndReadsTheLease() throws Exception {
        answers.add(Answer.json(201, "{\"lock\":\"orders/1\",\"leaseId\":\"L-1\",\"token\":42,\"expiresAt\":1700000000000}"));
        Lease lease = client.acquire("orders/1", Duration.ofSeconds(30), Duration.ofMillis(50)).orElseThrow();
        assertThat(lease).isEqualTo(new Lease("orders/1", "L-1", 42, Instant.ofEpochMilli(1700000000000L)));
        Seen s = lastRequest();
        assertThat(s.method()).isEqualTo("POST");
        assertThat(s.rawPath()).isEqualTo("/v1/leases");
        assertThat(s.headers()).containsEntry("authorization", "Bearer k3y");
        assertThat(new String(s.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"lock\":\"orders/1\",\"ttlMs\":30000,\"waitMs\":50}");
    }

    @Test
    void aReadAcquireSendsItsModeAndAPermitItsCountAndBothReadTheirShape() throws Exception {
        answers.add(Answer.json(201, "{\"lock\":\"orders/1\",\"leaseId\":\"R-1\",\"token\":43,\"expiresAt\":1700000000000,\"mode\":\"read\"}"));
        Lease read = client.acquire("orders/1", LeaseMode.READ, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(read.mode()).isEqualTo(LeaseMode.READ);
        assertThat(read.isPermit()).isFalse();
        assertThat(new String(lastRequest().body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"lock\":\"orders/1\",\"ttlMs\":30000,\"waitMs\":0,\"mode\":\"read\"}");

        answers.add(Answer.json(201, "{\"lock\":\"pool/2\",\"leaseId\":\"P-1\",\"token\":7,\"expiresAt\":1700000000000,\"mode\":\"write\",\"slot\":2}"));
        Lease permit = client.acquirePermit("pool", 3, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(permit.slot()).isEqualTo(2);
        assertThat(permit.lock()).isEqualTo("pool/2");
        assertThat(permit.mode()).isEqualTo(LeaseMode.WRITE);
        assertThat(new String(lastRequest().body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"lock\":\"pool\",\"ttlMs\":30000,\"waitMs\":0,\"permits\":3}");

        answers.add(Answer.json(423, "{\"type\":\"urn:fencegate:problem:lock-held\",\"status\":423}"));
        assertThat(client.acquirePermit("pool", 3, Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
        assertThatThrownBy(() -> client.acquirePermit("pool", 0, Duration.ofSeconds(30), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** The gateway may hold an acquire for its wait: the call's bound is the timeout plus the wait. */
    @Test
    void anAcquireMayTakeItsWaitBeyondTheTimeout() {
        FencegateClient quick = builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .timeout(Duration.ofMillis(300)).build();
        answerDelayMs = 900;
        answers.add(Answer.json(201, "{\"lock\":\"a\",\"leaseId\":\"L\",\"token\":4,\"expiresAt\":1}"));
        assertThat(quick.acquire("a", Duration.ofSeconds(5), Duration.ofSeconds(2))).isPresent();
    }

    @Test
    void aTransactionSendsEveryItemWithItsTokenAndReadsTheCommit() throws Exception {
        answers.add(Answer.json(200, "{\"committed\":true,\"items\":[{\"key\":\"a/1\",\"token\":7,\"previousToken\":3},"
                + "{\"key\":\"b\",\"token\":9,\"previousToken\":0}]}"));
        TransactionOutcome out = client.transaction("main").put("a/1", 7, new byte[] {1, 2}).delete("b", 9).commit();
        assertThat(out).isEqualTo(new TransactionOutcome.Committed(Map.of(
                "a/1", new WriteOutcome.Applied(7, 3), "b", new WriteOutcome.Applied(9, 0))));
        Seen s = lastRequest();
        assertThat(s.method()).isEqualTo("POST");
        assertThat(s.rawPath()).isEqualTo("/v1/stores/main/transactions");
        assertThat(new String(s.body(), StandardCharsets.UTF_8)).isEqualTo("{\"ops\":["
                + "{\"op\":\"put\",\"key\":\"a/1\",\"token\":7,\"valueBase64\":\"AQI=\"},"
                + "{\"op\":\"delete\",\"key\":\"b\",\"token\":9}]}");
    }

    @Test
    void aRefusedTransactionOrMultiReadNamesEveryRefusedItemAndOther409sAreErrors() throws Exception {
        String refused = "{\"type\":\"urn:fencegate:problem:stale\",\"title\":\"Conflict\",\"status\":409,"
                + "\"refused\":[{\"key\":\"a\",\"token\":5,\"currentToken\":5,\"fence\":5},"
                + "{\"key\":\"b\",\"token\":5,\"currentToken\":2,\"fence\":8}]}";
        answers.add(new Answer(409, "application/problem+json", refused.getBytes(StandardCharsets.UTF_8), Map.of()));
        TransactionOutcome out = client.transaction("main").put("a", 5, new byte[0]).put("b", 5, new byte[0]).commitAsync().join();
        assertThat(out).isEqualTo(new Refused(Map.of("a", new Stale(5, 5, 5), "b", new Stale(2, 8, 5))));
        assertThat(((Refused) out).items().get("a").alreadyApplied()).isTrue();
        answers.add(new Answer(409, "application/problem+json", refused.getBytes(StandardCharsets.UTF_8), Map.of()));
        assertThat(client.getAll("main", Map.of("a", 5L, "b", 5L))).isInstanceOf(Refused.class);
        answers.add(Answer.problem(409, "urn:fencegate:problem:stale"));
        assertThatThrownBy(() -> client.transaction("main").put("a", 5, new byte[0]).commit())
                .isInstanceOf(FencegateException.class);
    }

    @Test
    void aFencedMultiReadSendsKeysAndTokensAndReadsValuesAndMissingItems() throws Exception {
        answers.add(Answer.json(200, "{\"claimed\":true,\"items\":[{\"key\":\"a\",\"found\":true,\"token\":3,"
                + "\"fence\":8,\"valueBase64\":\"aGk=\"},{\"key\":\"m\",\"found\":false,\"token\":0,\"fence\":8}]}"));
        Map<String, Long> tokens = new java.util.LinkedHashMap<>();
        tokens.put("a", 8L);
        tokens.put("m", 8L);
        ClaimOutcome out = client.getAll("main", tokens);
        assertThat(out.claimed()).isTrue();
        var items = ((ClaimOutcome.Claimed) out).items();
        assertThat(((ReadOutcome.Value) items.get("a")).bytes()).isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
        assertThat(((ReadOutcome.Value) items.get("a")).token()).isEqualTo(3);
        assertThat(items.get("m")).isInstanceOf(ReadOutcome.NotFound.class);
        Seen s = lastRequest();
        assertThat(s.rawPath()).isEqualTo("/v1/stores/main/fenced-reads");
        assertThat(new String(s.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"items\":[{\"key\":\"a\",\"token\":8},{\"key\":\"m\",\"token\":8}]}");
    }

    @Test
    void heldLockIsAnEmptyAcquireNotAnError() {
        answers.add(Answer.problem(423, "urn:fencegate:problem:lock-held"));
        assertThat(client.acquire("a", Duration.ofSeconds(1), Duration.ZERO)).isEmpty();
    }

    @Test
    void renewReadsExpiryAndGoneLeaseIsEmpty() throws Exception {
        answers.add(Answer.json(200, "{\"expiresAt\":5}"));
        answers.add(Answer.problem(410, "urn:fencegate:problem:lease-gone"));
        assertThat(client.renew("id/with slash")).contains(Instant.ofEpochMilli(5));
        assertThat(lastRequest().rawPath()).isEqualTo("/v1/leases/id%2Fwith%20slash/renew");
        assertThat(client.renew("x")).isEmpty();
    }

    /**
     * The keep-alive's reading of renewal answers: a 503 is retried (the lease stays held), a 401 cannot
     * be cured by retrying and is reported once as RENEW_REFUSED. (Against a real gateway: ClientKeepAliveIT.)
     */
    @Test
    void keepAliveRetriesA503AndReportsARefusedRenewalOnce() throws Exception {
        answers.add(Answer.problem(503, "urn:fencegate:problem:issuer-unavailable"));
        answers.add(Answer.json(200, "{\"expiresAt\":5}"));
        answers.add(Answer.problem(401, "urn:fencegate:problem:unauthorized"));
        answers.add(new Answer(204, null, new byte[0], Map.of())); // the release after the loss
        List<LeaseLoss> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        Lease lease = new Lease("a", "L-1", 3, Instant.now().plusMillis(600));
        LeaseKeepAlive keepAlive = client.keepAlive(lease, Duration.ofMillis(600), (l, reason) -> told.add(reason));
        for (int i = 0; i < 3; i++) {
            assertThat(lastRequest().rawPath()).isEqualTo("/v1/leases/L-1/renew");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (told.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(told).containsExactly(LeaseLoss.RENEW_REFUSED);
        assertThat(keepAlive.held()).isFalse();
        assertThat(keepAlive.lastError()).get().isInstanceOf(FencegateException.class);
        assertThat(keepAlive.release()).isFalse();
        assertThat(told).hasSize(1);
    }

    /**
     * The keep-alive's first deadline is the acquire's send time plus the ttl, on the monotonic
     * clock: not the time keepAlive starts, and not the gateway's expiresAt (whose clock may run
     * ahead). Here the answer takes 300 ms and the holder starts its keep-alive 200 ms later; the
     * renewals get no answer.
     */
    @Test
    void keepAlivesFirstDeadlineCountsFromTheAcquiresSendTime() throws Exception {
        long ttlMs = 800;
        answers.add(Answer.json(201, "{\"lock\":\"a\",\"leaseId\":\"L-1\",\"token\":3,\"expiresAt\":"
                + (System.currentTimeMillis() + 60_000) + "}"));
        answerDelayMs = 300;
        long sent = System.nanoTime();
        Lease lease = client.acquire("a", Duration.ofMillis(ttlMs), Duration.ZERO).orElseThrow();
        answerDelayMs = 0;
        Thread.sleep(200);
        List<LeaseLoss> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        LeaseKeepAlive keepAlive = client.keepAlive(lease, Duration.ofMillis(ttlMs), (l, reason) -> told.add(reason));
        Duration remaining = keepAlive.remaining();
        long after = System.nanoTime();
        assertThat(after + remaining.toNanos()).as("the deadline, ms after the acquire was sent")
                .isLessThanOrEqualTo(sent + TimeUnit.MILLISECONDS.toNanos(ttlMs + 50));
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(sent - System.nanoTime()) + ttlMs + 100));
        assertThat(keepAlive.held()).isFalse();
        assertThat(told).containsExactly(LeaseLoss.EXPIRED);
    }

    /** An acquire that answered only after its ttl had run (a long wait): one renewal confirms it first. */
    @Test
    void keepAliveOfALeaseAnsweredAfterItsTtlIsConfirmedByARenewalFirst() throws Exception {
        long ttlMs = 500;
        answers.add(Answer.json(201, "{\"lock\":\"a\",\"leaseId\":\"L-1\",\"token\":3,\"expiresAt\":5}"));
        answerDelayMs = 700;
        Lease lease = client.acquire("a", Duration.ofMillis(ttlMs), Duration.ofSeconds(5)).orElseThrow();
        answerDelayMs = 0;
        lastRequest();
        answers.add(Answer.json(200, "{\"expiresAt\":5}"));
        long beforeKeepAlive = System.nanoTime();
        LeaseKeepAlive keepAlive = client.keepAlive(lease, Duration.ofMillis(ttlMs), null);
        assertThat(lastRequest().rawPath()).isEqualTo("/v1/leases/L-1/renew");
        assertThat(keepAlive.held()).as("confirmed by the renewal").isTrue();
        assertThat(System.nanoTime() + keepAlive.remaining().toNanos())
                .isGreaterThan(beforeKeepAlive + TimeUnit.MILLISECONDS.toNanos(ttlMs) - TimeUnit.MILLISECONDS.toNanos(1));
    }

    /** The same, but the renewal answers 410: the holder is told GONE before keepAlive returns. */
    @Test
    void keepAliveOfALeaseAnsweredAfterItsTtlThatIsGoneIsToldAtOnce() throws Exception {
        answers.add(Answer.json(201, "{\"lock\":\"a\",\"leaseId\":\"L-1\",\"token\":3,\"expiresAt\":5}"));
        answerDelayMs = 400;
        Lease lease = client.acquire("a", Duration.ofMillis(300), Duration.ofSeconds(5)).orElseThrow();
        answerDelayMs = 0;
        answers.add(Answer.problem(410, "urn:fencegate:problem:lease-gone"));
        List<LeaseLoss> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        LeaseKeepAlive keepAlive = client.keepAlive(lease, Duration.ofMillis(300), (l, reason) -> told.add(reason));
        assertThat(told).containsExactly(LeaseLoss.GONE);
        assertThat(keepAlive.held()).isFalse();
    }

    @Test
    void keepAliveRefusesANonPositiveTtlAndSendsNothing() {
        Lease lease = new Lease("a", "L-1", 3, Instant.now().plusSeconds(1));
        assertThatThrownBy(() -> client.keepAlive(lease, Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl must be positive");
        assertThat(seen).isEmpty();
    }

    @Test
    void releaseIsTrueOn204AndFalseOnGoneLease() throws Exception {
        answers.add(new Answer(204, null, new byte[0], Map.of()));
        answers.add(Answer.problem(410, "urn:fencegate:problem:lease-gone"));
        assertThat(client.release("L-1")).isTrue();
        assertThat(lastRequest().method()).isEqualTo("DELETE");
        assertThat(client.release("L-1")).isFalse();
    }

    @Test
    void keyIsEncodedPerSegmentKeepingSlashesAndUnicode() throws Exception {
        answers.add(Answer.json(200, "{\"applied\":true,\"token\":7,\"previousToken\":3}"));
        WriteOutcome out = client.put("docs", "2026/rép ort?#%.txt", 7, new byte[] {1, 2});
        assertThat(out).isEqualTo(new WriteOutcome.Applied(7, 3));
        Seen s = lastRequest();
        assertThat(s.method()).isEqualTo("PUT");
        assertThat(s.rawPath()).isEqualTo("/v1/stores/docs/items/2026/r%C3%A9p%20ort%3F%23%25.txt");
        assertThat(s.headers()).containsEntry("fencing-token", "7");
        assertThat(s.body()).containsExactly(1, 2);
    }

    @Test
    void staleWriteIsAResultAndRecognisesItsOwnRetriedWrite() {
        answers.add(Answer.json(409, "{\"currentToken\":9,\"fence\":12}"));
        answers.add(Answer.json(409, "{\"currentToken\":7,\"fence\":7}"));
        WriteOutcome first = client.put("s", "k", 7, new byte[0]);
        assertThat(first).isEqualTo(new Stale(9, 12, 7));
        assertThat(((Stale) first).alreadyApplied()).isFalse();
        WriteOutcome retried = client.delete("s", "k", 7);
        assertThat(retried).isInstanceOfSatisfying(Stale.class, st -> assertThat(st.alreadyApplied()).isTrue());
    }

    @Test
    void fencedReadSendsTokenAndReadsValueTokenOrStale() throws Exception {
        answers.add(new Answer(200, "application/octet-stream", new byte[] {9}, Map.of("Fencing-Token", "4")));
        answers.add(Answer.json(409, "{\"currentToken\":8}"));
        ReadOutcome v = client.get("s", "k", 5);
        assertThat(v).isInstanceOfSatisfying(ReadOutcome.Value.class, val -> {
            assertThat(val.bytes()).containsExactly(9);
            assertThat(val.token()).isEqualTo(4);
        });
        assertThat(lastRequest().headers()).containsEntry("fencing-token", "5");
        assertThat(client.get("s", "k", 5)).isEqualTo(new Stale(8, 8, 5));
    }

    @Test
    void plainReadCarriesNoTokenAndMissingItemIsNotFound() throws Exception {
        answers.add(Answer.problem(404, "urn:fencegate:problem:item-not-found"));
        assertThat(client.get("s", "k")).isInstanceOf(ReadOutcome.NotFound.class);
        assertThat(lastRequest().headers()).doesNotContainKey("fencing-token");
    }

    @Test
    void unknownStoreOnReadIsAnErrorNotAMissingItem() {
        answers.add(Answer.problem(404, "urn:fencegate:problem:unknown-store"));
        assertThatThrownBy(() -> client.get("nope", "k"))
                .isInstanceOfSatisfying(FencegateException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.type()).isEqualTo("urn:fencegate:problem:unknown-store");
                });
    }

    @Test
    void errorsOtherThanStaleRaiseWithStatusTypeAndDetail() {
        answers.add(Answer.problem(403, "urn:fencegate:problem:token-not-granted"));
        assertThatThrownBy(() -> client.put("s", "k", 1, new byte[0]))
                .isInstanceOfSatisfying(FencegateException.class, e -> {
                    assertThat(e.status()).isEqualTo(403);
                    assertThat(e.type()).isEqualTo("urn:fencegate:problem:token-not-granted");
                    assertThat(e.detail()).isEqualTo("d");
                });
    }

    @Test
    void statementSendsKeyAndParamsAndReadsRows() throws Exception {
        answers.add(Answer.json(200, "{\"applied\":true,\"rows\":2,\"extra\":\"x\"}"));
        StatementOutcome out = client.statement("db", "debit", 11, "acct/1", Map.of("amount", 5));
        assertThat(out).isInstanceOfSatisfying(StatementOutcome.Executed.class, ex -> {
            assertThat(ex.rows()).isEqualTo(2);
            assertThat(ex.token()).isEqualTo(11);
            assertThat(ex.body()).containsEntry("extra", "x");
        });
        Seen s = lastRequest();
        assertThat(s.rawPath()).isEqualTo("/v1/stores/db/statements/debit");
        assertThat(new String(s.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"key\":\"acct/1\",\"params\":{\"amount\":5}}");
    }

    @Test
    void aSilentServerIsBoundedByTheRequestTimeout() {
        FencegateClient quick = builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .timeout(Duration.ofMillis(300)).build();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> quick.get("s", "k")).isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(HttpTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    /** A refused connection carried no request: callers (the checker) tell it from a timeout by its type. */
    @Test
    void aRefusedConnectionIsAConnectException() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        FencegateClient refused = builder(URI.create("http://127.0.0.1:" + closedPort)).timeout(Duration.ofSeconds(2)).build();
        assertThatThrownBy(() -> refused.get("s", "k")).isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(ConnectException.class);
    }

    /**
     * A dependent stage runs on the client's own threads, never on the HTTP client's selector thread:
     * blocking there on another call of the same client (which that thread would have to answer)
     * completes instead of hanging.
     */
    @Test
    void aDependentStageMayBlockOnAnotherCallOfTheSameClient() throws Exception {
        answers.add(Answer.json(200, "{\"applied\":true,\"token\":7,\"previousToken\":3}"));
        answers.add(new Answer(200, "application/octet-stream", new byte[] {5}, Map.of("Fencing-Token", "7")));
        ReadOutcome read = client.putAsync("s", "k", 7, new byte[] {5})
                .thenApply(applied -> client.get("s", "k"))
                .get(5, TimeUnit.SECONDS);
        assertThat(read).isInstanceOfSatisfying(ReadOutcome.Value.class, v -> assertThat(v.bytes()).containsExactly(5));
    }

    /**
     * A dependent stage that starts an asynchronous call and waits for it: the call must run on
     * another of the client's threads than the one the stage blocks (one thread for every exchange
     * hangs here).
     */
    @Test
    void aDependentStageMayWaitForAnAsyncCallItStarted() throws Exception {
        answers.add(Answer.json(200, "{\"applied\":true,\"token\":7,\"previousToken\":3}"));
        answers.add(new Answer(200, "application/octet-stream", new byte[] {5}, Map.of("Fencing-Token", "7")));
        ReadOutcome read = client.putAsync("s", "k", 7, new byte[] {5})
                .thenApply(applied -> client.getAsync("s", "k").join())
                .get(5, TimeUnit.SECONDS);
        assertThat(read).isInstanceOfSatisfying(ReadOutcome.Value.class, v -> assertThat(v.bytes()).containsExactly(5));
    }

    /** The same when the stage waits by other means than the call's future: here a latch that the call's own stage opens. */
    @Test
    void aDependentStageMayAwaitALatchThatAnAsyncCallItStartedOpens() throws Exception {
        answers.add(Answer.json(200, "{\"applied\":true,\"token\":7,\"previousToken\":3}"));
        answers.add(Answer.json(200, "{\"applied\":true,\"token\":7,\"previousToken\":7}"));
        CountDownLatch secondAnswered = new CountDownLatch(1);
        boolean opened = client.putAsync("s", "k", 7, new byte[] {1})
                .thenApply(applied -> {
                    client.putAsync("s", "k", 7, new byte[] {2}).thenRun(secondAnswered::countDown);
                    try {
                        return secondAnswered.await(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                })
                .get(10, TimeUnit.SECONDS);
        assertThat(opened).isTrue();
    }

    /**
     * Calls reuse the client's threads. The JDK's {@code sendAsync} completes through a thread started
     * per request where the common pool is small (1 or 2 CPUs), which cost more CPU than the request.
     */
    @Test
    void asyncCallsReuseTheClientsThreads() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String applied = "{\"applied\":true,\"token\":7,\"previousToken\":3}";
        answers.add(Answer.json(200, applied));
        client.putAsync("s", "k", 7, new byte[] {1}).get(5, TimeUnit.SECONDS); // the client's threads exist now
        long startedBefore = threads.getTotalStartedThreadCount();
        for (int i = 0; i < 50; i++) {
            answers.add(Answer.json(200, applied));
            client.putAsync("s", "k", 7, new byte[] {1}).get(5, TimeUnit.SECONDS);
        }
        assertThat(threads.getTotalStartedThreadCount() - startedBefore).isLessThan(10);
    }

    @Test
    void nonPositiveTokenIsRefusedBeforeSending() {
        assertThatThrownBy(() -> client.put("s", "k", 0, new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThat(seen).isEmpty();
    }

    /** The README snippet, against canned answers: acquire, fenced read, put, release. */
    @Test
    void readmeSnippetRunsAcquireFencedReadPutRelease() throws Exception {
        answers.add(Answer.json(201, "{\"lock\":\"stock/sku-42\",\"leaseId\":\"L\",\"token\":8,\"expiresAt\":1}"));
        answers.add(new Answer(200, "application/octet-stream", "1".getBytes(StandardCharsets.UTF_8), Map.of("Fencing-Token", "7")));
        answers.add(Answer.json(200, "{\"applied\":true,\"token\":8,\"previousToken\":7}"));
        answers.add(new Answer(204, null, new byte[0], Map.of()));
        FencegateClient client = this.client;

        // --- README snippet begins
        Lease lease = client.acquire("stock/sku-42", Duration.ofSeconds(30), Duration.ofSeconds(5))
                .orElseThrow(() -> new IllegalStateException("lock busy"));
        try {
            // A fenced read claims the item: from now on no older token can write it.
            ReadOutcome read = client.get("stock", "sku-42", lease.token());
            if (read instanceof Stale st) {
                throw new IllegalStateException("a newer holder got there first: " + st);
            }
            int stock = read instanceof ReadOutcome.Value v
                    ? Integer.parseInt(new String(v.bytes(), StandardCharsets.UTF_8)) : 0;
            if (stock > 0) {
                byte[] next = Integer.toString(stock - 1).getBytes(StandardCharsets.UTF_8);
                WriteOutcome out = client.put("stock", "sku-42", lease.token(), next);
                if (out instanceof Stale st && !st.alreadyApplied()) {
                    throw new IllegalStateException("lost the lock before writing: " + st);
                }
            }
        } finally {
            client.release(lease.leaseId());
        }
        // --- README snippet ends

        List<String> calls = List.of(lastRequest().method(), lastRequest().method(), lastRequest().method(),
                lastRequest().method());
        assertThat(calls).containsExactly("POST", "GET", "PUT", "DELETE");
    }
}
