package io.fencegate.gateway.hostile;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/** Key a invents request methods and paths to grow the gateway's metric series without bound. */
@Timeout(120)
class MetricLabelsHostileIT extends HostileTenantTestBase {
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
