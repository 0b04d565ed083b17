package io.fencegate.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Key a tries to make the gateway hold memory while key b works: bodies sent slowly, a byte every
 * 2 s, to hold the heap or the body budget; invented request methods, to grow the metric series.
 * Each vector runs through {@link HostileTenantTestBase#assertKeyBUnharmedBy}, on the class's gateway.
 */
@Timeout(180)
class MemoryHostileIT extends HostileTenantTestBase {
    private static final long TRICKLE_MS = 2000;
    /** The temporary disk of streamed bodies, and a's share: small, so that filling it is cheap. */
    private static final int TEMP_DISK = 64 << 20;
    private static final int TEMP_DISK_PER_KEY = 32 << 20;
    private static final int UPLOAD_BYTES = 4 << 20;

    @Override
    protected String gatewayYaml() {
        return "limits: { requestTimeout: 5s, tempDiskBytes: " + TEMP_DISK + ", tempDiskPerKeyBytes: " + TEMP_DISK_PER_KEY + " }";
    }

    /**
     * Eight workers of a's (as many 4 MiB bodies as its share of the temporary disk holds) stream
     * 4 MiB bodies into the files store as fast as they can, each with a lease of its own: the
     * bodies in flight must not hold the heap, nor take b's uploads' place.
     */
    @Test
    void manyFastStreamedUploadsDoNotHoldTheHeap(TestInfo test) throws Exception {
        byte[] body = new byte[UPLOAD_BYTES];
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger applied = new AtomicInteger();
            java.util.List<Thread> workers = new java.util.ArrayList<>();
            for (int w = 0; w < TEMP_DISK_PER_KEY / UPLOAD_BYTES; w++) {
                String lock = "files/a/uploads/" + w;
                workers.add(SteadyMix.daemon("streamed-uploads-" + w, () -> {
                    while (!stop.get()) {
                        try {
                            Tenant.Lease lease = a.acquire(lock, 30_000);
                            int status = a.send(a.request(Tenant.itemPath("files", lock.substring("files/".length())))
                                    .header("Fencing-Token", Long.toString(lease.token()))
                                    .PUT(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body)).build()).statusCode();
                            if (status == 200) {
                                applied.incrementAndGet();
                            }
                            a.send(a.request("/v1/leases/" + lease.leaseId()).DELETE().build());
                        } catch (Exception e) {
                            // a's own answers (429 past its shares) are not the point
                        }
                    }
                }));
            }
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> applied.get() >= TEMP_DISK_PER_KEY / UPLOAD_BYTES);
            return () -> {
                stop.set(true);
                for (Thread t : workers) {
                    t.join(30_000);
                }
            };
        });
    }

    /**
     * Three times as many of a's 4 MiB uploads to the files store as its share of the temporary
     * disk holds send half their body at once, then a byte every 2 s: past the share each is
     * answered 429 with Retry-After, and b's uploads to the same store go on.
     */
    @Test
    void temporaryFilesOfOneKeyDoNotFillTheDisk(TestInfo test) throws Exception {
        AtomicReference<Trickle> opened = new AtomicReference<>();
        int uploads = 3 * TEMP_DISK_PER_KEY / UPLOAD_BYTES;
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            Tenant.Lease lease = a.acquire("files/a/disk/" + System.nanoTime(), 60_000);
            Trickle trickle = Trickle.open(gateway.uri, uploads, a.putHead(lease, "Content-Length: " + UPLOAD_BYTES),
                    TRICKLE_MS, UPLOAD_BYTES / 2);
            opened.set(trickle);
            Thread.sleep(3000); // the admitted bodies are half written to their temporary files
            return () -> {
                trickle.close();
                a.send(a.request("/v1/leases/" + lease.leaseId()).DELETE().build());
            };
        });
        java.util.List<String> answers = opened.get().answers();
        assertThat(answers.stream().filter(answer -> answer.startsWith("HTTP/1.1 429 ")).count())
                .as("a's uploads refused past its share of the temporary disk: %s", answers.stream()
                        .filter(x -> !x.isEmpty()).map(x -> x.split("\r\n", 2)[0]).distinct().toList())
                .isEqualTo(uploads - TEMP_DISK_PER_KEY / UPLOAD_BYTES);
    }

    /** A lease of key a's on an item of its own, {@code main/a/<unique>}: tests share a gateway. */
    private static Tenant.Lease ownLease(Tenant a) throws Exception {
        return a.acquire("main/a/" + System.nanoTime(), 60_000);
    }

    private static String putHead(Tenant a, Tenant.Lease lease, String framing) {
        return a.putHead(lease, framing);
    }

    /** 160 connections declare bodies just under 1 MiB, outside the body budget, and send a byte every 2 s. */
    @Test
    void declaredBodiesJustUnderOneMibDoNotExhaustTheHeap(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            Tenant.Lease lease = ownLease(a);
            Trickle trickle = Trickle.open(gateway.uri, 160, putHead(a, lease, "Content-Length: 1048575"), false, TRICKLE_MS);
            Thread.sleep(1500); // the grant checks pass and the bodies are admitted
            return trickle;
        });
    }

    /**
     * Two chunked PUTs and two that declare 8 MiB trickle a byte every 2 s: an admitted body's budget
     * must not be held for ever, nor one key's bodies take the whole budget.
     */
    @Test
    void trickledBodiesDoNotHoldTheBodyBudget(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            Tenant.Lease lease = ownLease(a);
            Trickle chunked = Trickle.open(gateway.uri, 2, putHead(a, lease, "Transfer-Encoding: chunked"), true, TRICKLE_MS);
            Trickle declared = Trickle.open(gateway.uri, 2, putHead(a, lease, "Content-Length: " + (8 << 20)), false, TRICKLE_MS);
            Thread.sleep(1500);
            return () -> {
                chunked.close();
                declared.close();
            };
        });
    }

    /**
     * A key that may use no lock of the store, with a token it was never granted, opens 32 chunked
     * statement POSTs: it must be refused before its body is read, budgeted or invited
     * ({@code 100 Continue}).
     */
    @Test
    void statementBodiesAreNotReadBeforeTheForbiddenCheck(TestInfo test) throws Exception {
        AtomicReference<Trickle> opened = new AtomicReference<>();
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            String head = "POST /v1/stores/main/statements/touch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + HostileGateway.KEY_NO_ITEMS + "\r\nFencing-Token: 999999\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked";
            Trickle trickle = Trickle.open(gateway.uri, 32, head, true, TRICKLE_MS);
            opened.set(trickle);
            Thread.sleep(1500);
            return trickle;
        });
        assertThat(opened.get().answers()).as("answers to key a's statement POSTs")
                .noneMatch(answer -> answer.contains(" 100 Continue"));
    }

    private static final int BATCH = 100;
    private static final int RAMP = 6_000;
    private static final int MOST = 40_000;

    /** A request with a method of its own, on a store route that answers 405, over and over. */
    @Test
    void inventedMethodsDoNotGrowTheMetricsWithoutBound(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sent = new AtomicInteger();
            CountDownLatch ramped = new CountDownLatch(1);
            Thread sender = SteadyMix.daemon("invented-methods", () -> {
                while (!stop.get() && sent.get() < MOST) {
                    try (Socket socket = new Socket(gateway.uri.getHost(), gateway.uri.getPort())) {
                        socket.setSoTimeout(10_000);
                        while (!stop.get() && sent.get() < MOST) {
                            pipeline(socket, a.apiKey, sent);
                            if (sent.get() >= RAMP) {
                                ramped.countDown();
                            }
                        }
                    } catch (IOException e) {
                        // closed by the gateway (or it died): open another
                    }
                }
                ramped.countDown();
            });
            ramped.await(60, TimeUnit.SECONDS);
            return () -> {
                stop.set(true);
                sender.join(15_000);
            };
        });
    }

    /** Sends {@link #BATCH} requests with fresh methods on one connection and reads as many answers. */
    private static void pipeline(Socket socket, String apiKey, AtomicInteger sent) throws IOException {
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < BATCH; i++) {
            requests.append("X").append(sent.getAndIncrement()).append("Z /v1/stores/main/items/a/x HTTP/1.1\r\n")
                    .append("Host: 127.0.0.1\r\nAuthorization: Bearer ").append(apiKey).append("\r\n\r\n");
        }
        OutputStream out = socket.getOutputStream();
        out.write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        InputStream in = socket.getInputStream();
        byte[] marker = "HTTP/1.1 ".getBytes(StandardCharsets.ISO_8859_1);
        int answers = 0;
        int matched = 0;
        byte[] buf = new byte[16384];
        while (answers < BATCH) {
            int n = in.read(buf);
            if (n < 0) {
                throw new IOException("closed");
            }
            for (int i = 0; i < n; i++) {
                matched = buf[i] == marker[matched] ? matched + 1 : (buf[i] == marker[0] ? 1 : 0);
                if (matched == marker.length) {
                    answers++;
                    matched = 0;
                }
            }
        }
    }
}
