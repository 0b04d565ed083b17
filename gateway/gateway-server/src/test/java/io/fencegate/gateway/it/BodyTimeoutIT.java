package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.Lease;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.store.GuardRule;
import io.fencegate.store.StoreLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A body that stops, or trickles, is answered 408 and its connection closed once its idle or total
 * body timeout passes ({@code limits.bodyIdleTimeout} 1 s, {@code limits.bodyTimeout} 3 s here),
 * so an admitted body cannot hold its budget for as long as a client likes.
 */
@Timeout(60)
class BodyTimeoutIT {
    private static GatewayHarness gw;

    @BeforeAll
    static void start() throws Exception {
        var issuer = new MemoryIssuerProvider.MemoryIssuer(0);
        var store = new MemoryStoreProvider.MemoryStore(GuardRule.SAME_LEASE, StoreLimits.DEFAULT);
        GatewayOptions options = new GatewayOptions();
        options.limits().bodyIdleTimeout(Duration.ofSeconds(1)).bodyTimeout(Duration.ofSeconds(3));
        gw = new GatewayHarness(options, issuer, List.of(StoreBinding.of("s", store)), List.of(issuer));
    }

    @AfterAll
    static void stop() throws Exception {
        if (gw != null) {
            gw.close();
        }
    }

    @Test
    void aBodyThatStopsIsAnswered408AfterTheIdleTimeout() throws Exception {
        long started = System.nanoTime();
        String answer = putSlowly("stops", 100, 1, 0);
        assertThat(answer).startsWith("HTTP/1.1 408").contains("body-timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void aBodyThatTricklesIsAnswered408AfterTheBodyTimeout() throws Exception {
        long started = System.nanoTime();
        String answer = putSlowly("trickles", 100, 100, 400);
        assertThat(answer).startsWith("HTTP/1.1 408").contains("not whole within the body timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    }

    /**
     * PUTs {@code declared} bytes to {@code s/<name>}, sending {@code send} of them one at a time
     * {@code periodMs} apart, and answers what the gateway sent before it closed the connection.
     */
    private static String putSlowly(String name, int declared, int send, long periodMs) throws Exception {
        Lease lease = gw.client().acquire("s/" + name, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
        try (Socket socket = new Socket("127.0.0.1", gw.uri().getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /v1/stores/s/items/" + name + " HTTP/1.1\r\nHost: 127.0.0.1\r\nFencing-Token: " + lease.token()
                    + "\r\nContent-Length: " + declared + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < send; i++) {
                        out.write('x');
                        out.flush();
                        Thread.sleep(periodMs);
                    }
                } catch (IOException | InterruptedException closed) {
                    // answered and closed
                }
            });
            writer.setDaemon(true);
            writer.start();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) > 0; ) { // until the gateway closes the connection
                    answer.write(buf, 0, n);
                }
            } catch (java.net.SocketException reset) {
                // closed while a byte was on its way: what was answered before is still here
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
