package io.fencegate.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Key a (and callers without a key) take what the gateway's callers share: the issuer's lock
 * listing, streams, watched leases, waiting acquires, live leases. Key b's mix stays whole, and
 * b still gets its own watch and status page while a holds all it may. The shares are the shipped
 * ones except where a smaller one keeps the test cheap ({@link #gatewayYaml}).
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharesHostileIT extends HostileTenantTestBase {
    /** 850 lock names of 1030 bytes: 1.2 MB of names in one ZooKeeper reply, over the client's 1 MiB. */
    private static final int IDLE_LOCKS = 850;
    private static final int NAME_BYTES = 1030;
    /**
     * a's share of lock-name bytes: room for the long-named idle locks above (1.17 MB of listing
     * bytes) and the other vectors' names, and about a hundred more long names.
     */
    private static final int LOCK_NAME_SHARE = 1_363_148;
    /** a's share of requests in flight: small, so that the connection flood passes it cheaply. */
    private static final int REQUEST_SHARE = 100;

    @Override
    protected String gatewayYaml() {
        return "limits: { requestTimeout: 5s,"
                + " perKey: { watchStreams: 200, waiters: 20, leases: 150, lockNameBytes: " + LOCK_NAME_SHARE + ", requests: "
                + REQUEST_SHARE + " } }";
    }

    /**
     * Key a fills its prefix with idle locks of long names, 1.2 MB of names (more than a ZooKeeper
     * client's default 1 MiB reply), then lists its leases over and over; key b lists its own
     * meanwhile, and every listing of b's answers 200 with b's lease in it.
     */
    @Test
    void longNamedIdleLocksLeaveEveryKeysListing(TestInfo test) throws Exception {
        List<String> bListings = java.util.Collections.synchronizedList(new ArrayList<>());
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> made = new ArrayList<>();
                for (int i = 0; i < IDLE_LOCKS; i++) {
                    String lock = String.format("a/%04d/", i);
                    String name = lock + "x".repeat(NAME_BYTES - lock.length());
                    made.add(pool.submit(() -> {
                        Tenant.Lease lease = a.acquire(name, 30_000);
                        return a.send(a.request("/v1/leases/" + lease.leaseId()).DELETE().build()).statusCode();
                    }));
                }
                for (Future<?> f : made) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            Tenant b = new Tenant(gateway.uri, HostileGateway.KEY_B);
            Tenant.Lease listed = b.acquire("b/listed", 60_000);
            AtomicBoolean stop = new AtomicBoolean();
            Thread lister = SteadyMix.daemon("listing-flood", () -> {
                while (!stop.get()) {
                    try {
                        a.send(a.request("/v1/leases?prefix=a/&limit=10").GET().build());
                    } catch (Exception e) {
                        // a's own answers are not the point
                    }
                }
            });
            Thread bLister = SteadyMix.daemon("b-listing", () -> {
                while (!stop.get()) {
                    try {
                        HttpResponse<byte[]> r = b.send(b.request("/v1/leases?prefix=b/listed").GET().build());
                        String body = new String(r.body(), StandardCharsets.UTF_8);
                        bListings.add(r.statusCode() == 200 && body.contains("\"b/listed\"") ? "ok" : r.statusCode() + " " + body);
                        Thread.sleep(100);
                    } catch (Exception e) {
                        bListings.add(e.toString());
                    }
                }
            });
            return () -> {
                stop.set(true);
                lister.join(15_000);
                bLister.join(15_000);
                b.send(b.request("/v1/leases/" + listed.leaseId()).DELETE().build());
            };
        });
        assertThat(bListings).as("b's listings while a's long names fill ZooKeeper").isNotEmpty().containsOnly("ok");
    }

    /**
     * Key a acquires ever new long lock names (100 ms leases) until its share of lock-name bytes
     * answers 429 with Retry-After; b's acquires of its own names go on. Last of the class: a's
     * names count for {@code lockNameWindow} (10 min) after their leases, as idle locks stay in
     * ZooKeeper, so a vector after it would find a's share full.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void newLockNamesPastTheKeysShareAreRefused(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            AtomicBoolean refused = new AtomicBoolean();
            List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int w = 0; w < 8; w++) {
                    workers.add(pool.submit(() -> {
                        while (!refused.get() && next.get() < LOCK_NAME_SHARE / 1000) {
                            String head = "a/flood/" + next.getAndIncrement() + "/";
                            HttpResponse<byte[]> r = a.send(a.request("/v1/leases").POST(HttpRequest.BodyPublishers.ofString(
                                    new JsonObject().put("lock", head + "x".repeat(NAME_BYTES - head.length()))
                                            .put("ttlMs", 100).encode())).build());
                            if (r.statusCode() == 429) {
                                try {
                                    assertOverShare(r.statusCode(), r.headers(), new String(r.body(), StandardCharsets.UTF_8));
                                } catch (AssertionError e) {
                                    wrong.add(e.getMessage());
                                }
                                refused.set(true);
                            } else if (r.statusCode() != 201) {
                                wrong.add(r.statusCode() + " " + new String(r.body(), StandardCharsets.UTF_8));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : workers) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(wrong).as("a's answers other than 201 and its share's 429").isEmpty();
            assertThat(refused).as("a was refused new names past its share").isTrue();
            return () -> { }; // a's leases ended by their ttl; its names count on, as ZooKeeper keeps its idle locks
        });
    }

    /**
     * Key a opens three times its share of connections, each a PUT whose body trickles: past its
     * share of requests in flight each is answered 429 with Retry-After, and b is served throughout.
     */
    @Test
    void hundredsOfConnectionsFromOneKeyLeaveKeyBServed(TestInfo test) throws Exception {
        AtomicReference<Trickle> opened = new AtomicReference<>();
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            Tenant.Lease lease = a.acquire("main/a/connections/" + System.nanoTime(), 60_000);
            Trickle trickle = Trickle.open(gateway.uri, 3 * REQUEST_SHARE, a.putHead(lease, "Content-Length: 64"), false, 2000);
            opened.set(trickle);
            Thread.sleep(1500);
            return () -> {
                trickle.close();
                a.send(a.request("/v1/leases/" + lease.leaseId()).DELETE().build());
            };
        });
        List<String> answers = opened.get().answers();
        long refused = answers.stream().filter(answer -> answer.startsWith("HTTP/1.1 429 ")).count();
        assertThat(refused).as("a's connections refused past its %d requests in flight: %s", REQUEST_SHARE,
                answers.stream().filter(x -> !x.isEmpty()).map(x -> x.split("\r\n", 2)[0]).distinct().toList())
                .isGreaterThanOrEqualTo(2 * REQUEST_SHARE - 10);
        assertThat(answers).filteredOn(answer -> answer.startsWith("HTTP/1.1 429 "))
                .allSatisfy(answer -> assertThat(answer).containsIgnoringCase("Retry-After:"));
    }

    /**
     * Fifty status streams without a key, a's watches of more leases than its share and more
     * streams on one lease than its share: each past its share is 429 with Retry-After, and b's
     * watch and status page are served.
     */
    @Test
    void streamAndWatchFloodsLeaveKeyBItsWatchAndStatusPage(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            List<HttpResponse<InputStream>> open = new ArrayList<>();
            Tenant keyless = new Tenant(gateway.uri, null);
            int refused = 0;
            for (int i = 0; i < 50; i++) {
                refused += keep(open, stream(keyless, "/ui/events"));
            }
            assertThat(refused).as("keyless status streams past their share").isEqualTo(50 - 10);
            List<String> leases = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                leases.add(a.acquire("a/watched/" + i, 60_000).leaseId());
            }
            refused = 0;
            for (String id : leases) {
                refused += keep(open, stream(a, "/v1/leases/" + id + "/events"));
            }
            assertThat(refused).as("a's watches past its 100 leases").isEqualTo(20);
            refused = 0;
            for (int i = 0; i < 150; i++) {
                refused += keep(open, stream(a, "/v1/leases/" + leases.get(0) + "/events"));
            }
            assertThat(refused).as("a's streams past its 200").isEqualTo(150 - 100);

            Tenant b = new Tenant(gateway.uri, HostileGateway.KEY_B);
            Tenant.Lease mine = b.acquire("b/watched", 60_000);
            HttpResponse<InputStream> watch = stream(b, "/v1/leases/" + mine.leaseId() + "/events");
            HttpResponse<InputStream> status = stream(b, "/ui/events");
            watch.body().close();
            status.body().close();
            assertThat(watch.statusCode()).as("b's watch").isEqualTo(200);
            assertThat(status.statusCode()).as("b's status page").isEqualTo(200);
            b.send(b.request("/v1/leases/" + mine.leaseId()).DELETE().build());
            return () -> {
                for (HttpResponse<InputStream> r : open) {
                    r.body().close();
                }
                release(a, leases); // the vectors share one gateway: the next starts with a's lease share free
            };
        });
    }

    /** Key a waits on its own held lock with more acquires than its share, and holds all the leases it may. */
    @Test
    void waiterAndLeaseFloodsLeaveKeyBItsAcquires(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            List<String> held = new ArrayList<>(List.of(a.acquire("a/held", 60_000).leaseId()));
            List<CompletableFuture<HttpResponse<byte[]>>> waiting = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                waiting.add(a.http.sendAsync(a.request("/v1/leases").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"lock\":\"a/held\",\"ttlMs\":60000,\"waitMs\":9000}")).timeout(java.time.Duration.ofSeconds(30))
                        .build(), HttpResponse.BodyHandlers.ofByteArray()));
            }
            int leases = 1; // a/held
            for (int i = 0; ; i++) {
                HttpResponse<byte[]> r = a.send(a.request("/v1/leases").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"lock\":\"a/many/" + i + "\",\"ttlMs\":60000}")).build());
                if (r.statusCode() != 201) {
                    assertOverShare(r.statusCode(), r.headers(), new String(r.body(), StandardCharsets.UTF_8));
                    break;
                }
                leases++;
                held.add(new JsonObject(new String(r.body(), StandardCharsets.UTF_8)).getString("leaseId"));
                assertThat(i).as("a's leases granted").isLessThan(500);
            }
            // Waiters still waiting hold a place among a's leases too (an acquire may become a lease).
            assertThat(leases).as("a's live leases at its share").isBetween(150 - 20, 150);
            long overShare = 0;
            for (var w : waiting) {
                if (w.isDone() && w.get().statusCode() == 429) {
                    overShare++;
                }
            }
            assertThat(overShare).as("a's waiters past its share of 20").isEqualTo(20);
            return () -> {
                CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                release(a, held); // the vectors share one gateway: the next starts with a's lease share free
            };
        });
    }

    private static void release(Tenant t, List<String> leaseIds) throws Exception {
        for (String id : leaseIds) {
            t.send(t.request("/v1/leases/" + id).DELETE().build());
        }
    }

    /** 1 when refused (a 429 with Retry-After and a problem body), 0 when open (kept in {@code open}). */
    private static int keep(List<HttpResponse<InputStream>> open, HttpResponse<InputStream> r) throws Exception {
        if (r.statusCode() == 200) {
            open.add(r);
            return 0;
        }
        String body = new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
        assertOverShare(r.statusCode(), r.headers(), body);
        return 1;
    }

    private static HttpResponse<InputStream> stream(Tenant t, String path) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(t.base.resolve(path)).timeout(Tenant.CALL_TIMEOUT)
                .header("Accept", "text/event-stream").GET();
        if (t.apiKey != null) {
            request.header("Authorization", "Bearer " + t.apiKey);
        }
        return t.http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    private static void assertOverShare(int status, java.net.http.HttpHeaders headers, String body) {
        assertThat(status).as(body).isEqualTo(429);
        assertThat(headers.firstValue("Retry-After")).as("Retry-After").isPresent();
        assertThat(new JsonObject(body).getString("type")).isEqualTo("urn:fencegate:problem:too-many");
    }
}
