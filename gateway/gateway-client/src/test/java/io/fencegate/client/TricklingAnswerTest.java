package io.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's own transport bounds the whole call, not each read: a server that answers 200 and
 * then sends its body a byte every 100 ms (never silent for a read timeout's length) is cut off all
 * the same. Only the default transport promises this: on a JDK HttpClient given to the builder the
 * JDK's request timeout ends at the response's headers, as {@code Builder.httpClient} says.
 */
@Timeout(30)
class TricklingAnswerTest {

    @Test
    void aTricklingAnswerIsBoundedByTheRequestTimeout() throws Exception {
        try (ServerSocket trickler = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread serving = new Thread(() -> trickle(trickler), "trickler");
            serving.setDaemon(true);
            serving.start();
            FencegateClient quick = FencegateClient.builder(URI.create("http://127.0.0.1:" + trickler.getLocalPort()))
                    .timeout(Duration.ofMillis(400)).build();
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> quick.put("s", "k", 7, new byte[] {1})).isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(HttpTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        }
    }

    /** Answers every connection with headers at once, then a 100-byte body one byte every 100 ms. */
    private static void trickle(ServerSocket server) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.getInputStream().read(new byte[8192]); // the request (small: one read is enough here)
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                for (int i = 0; i < 100; i++) {
                    Thread.sleep(100);
                    out.write(' ');
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the client hung up, or the test is over
            }
        }
    }
}
