package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.gateway.Gateway;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A gateway in this JVM on a free loopback port, on its own Vert.x with a tight blocked-thread
 * limit, in front of the given issuer and stores (closed with it). Raw HTTP helpers for
 * black-box tests.
 */
final class GatewayHarness implements AutoCloseable {
    final Vertx vertx;
    final Gateway gateway;
    final GatewayMetrics metrics = GatewayMetrics.prometheus();
    final LeaseIssuer issuer;
    final List<StoreBinding> stores;
    private final List<AutoCloseable> owned;
    private final BlockedThreadWatch blocked = new BlockedThreadWatch();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    GatewayHarness(GatewayOptions options, LeaseIssuer issuer, List<StoreBinding> stores, List<AutoCloseable> owned)
            throws Exception {
        this.issuer = issuer;
        this.stores = stores;
        this.owned = new ArrayList<>(owned);
        this.vertx = Vertx.vertx(BlockedThreadWatch.options());
        this.gateway = Gateway.start(vertx, options.port(0), issuer, stores, metrics)
                .await(20, TimeUnit.SECONDS);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + gateway.port() + "/");
    }

    FencegateClient client() {
        return FencegateClient.builder(uri()).timeout(Duration.ofSeconds(20)).build();
    }

    FencegateClient client(String apiKey) {
        return FencegateClient.builder(uri()).apiKey(apiKey).timeout(Duration.ofSeconds(20)).build();
    }

    /** A token granted for {@code lock}: the lease is released at once, the grant stays on record. */
    long grantedToken(String lock) {
        FencegateClient client = client();
        Lease lease = client.acquire(lock, Duration.ofSeconds(30), Duration.ofSeconds(5)).orElseThrow();
        client.release(lease.leaseId());
        return lease.token();
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /**
     * Sends and answers once the status line and headers are in, the body left to read (or close):
     * for routes whose body is an endless stream (server-sent events).
     */
    HttpResponse<InputStream> sendStreaming(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    HttpRequest.Builder request(String path) {
        // Not URI.resolve: it would normalise the path ("a//b" to "a/b") that tests send on purpose.
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path));
    }

    /**
     * Sends bytes as they are on a fresh connection and answers the status line's code: for paths
     * no HTTP client library would send unnormalised ({@code ..}, raw spaces).
     */
    int raw(String requestHead, byte[] body) throws IOException {
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(requestHead.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) >= 0 && c != '\n'; ) {
                line.append((char) c);
            }
            String[] parts = line.toString().split(" ");
            return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
        }
    }

    void assertEventLoopNeverBlocked() {
        assertThat(blocked.warnings()).as("Vert.x blocked-thread warnings").isEmpty();
    }

    @Override
    public void close() throws Exception {
        try {
            gateway.close().await(20, TimeUnit.SECONDS);
            vertx.close().await(20, TimeUnit.SECONDS);
        } finally {
            blocked.close();
            for (int i = owned.size() - 1; i >= 0; i--) {
                owned.get(i).close();
            }
        }
    }
}
