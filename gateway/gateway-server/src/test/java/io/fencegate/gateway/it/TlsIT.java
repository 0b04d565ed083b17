package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code server.tls}: the gateway serves HTTPS with a PEM certificate and key (made here by
 * {@code openssl}), a client that trusts the certificate does a fenced read-modify-write over it,
 * and neither plain HTTP nor a client that does not trust the certificate gets an answer.
 */
class TlsIT {

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void servesHttpsOnlyWithTheConfiguredCertificate() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "tls-it");
        try (TestingServer zookeeper = new TestingServer(true)) {
            Path cert = dir.resolve("cert.pem");
            Path key = dir.resolve("key.pem");
            selfSigned(cert, key);
            Path items = Files.createDirectory(dir.resolve("items"));
            var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                    .operationTimeout(Duration.ofSeconds(5)).build();
            var store = FilesGuardedStore.open(items, GuardRule.STRICT);
            GatewayOptions options = new GatewayOptions().tls(new GatewayOptions.Tls(cert.toString(), key.toString()));
            try (GatewayHarness gw = new GatewayHarness(options, issuer, List.of(StoreBinding.of("docs", store)),
                    List.of(issuer, store))) {
                URI https = URI.create("https://localhost:" + gw.gateway.port() + "/");
                HttpClient trusting = HttpClient.newBuilder().sslContext(trusting(cert))
                        .connectTimeout(Duration.ofSeconds(5)).build();
                FencegateClient client = FencegateClient.builder(https).httpClient(trusting)
                        .timeout(Duration.ofSeconds(20)).build();

                Lease lease = client.acquire("docs/report", Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
                assertThat(client.get("docs", "report", lease.token())).isInstanceOf(ReadOutcome.NotFound.class);
                assertThat(client.put("docs", "report", lease.token(), "v1".getBytes(StandardCharsets.UTF_8)).applied())
                        .isTrue();
                assertThat(client.release(lease.leaseId())).isTrue();
                assertThat(((ReadOutcome.Value) client.get("docs", "report")).bytes()).asString().isEqualTo("v1");

                HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                assertThatThrownBy(() -> untrusting.send(health(https), HttpResponse.BodyHandlers.discarding()))
                        .as("a client that does not trust the certificate").isInstanceOf(IOException.class);
                URI plain = URI.create("http://127.0.0.1:" + gw.gateway.port() + "/");
                assertThatThrownBy(() -> untrusting.send(health(plain), HttpResponse.BodyHandlers.discarding()))
                        .as("plain HTTP on the TLS port").isInstanceOf(IOException.class);
                gw.assertEventLoopNeverBlocked();
            }
        } finally {
            try (var all = Files.walk(dir)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static HttpRequest health(URI base) {
        return HttpRequest.newBuilder(base.resolve("health")).timeout(Duration.ofSeconds(10)).build();
    }

    /** A throwaway certificate for localhost and 127.0.0.1, as an operator would make one. */
    private static void selfSigned(Path cert, Path key) throws Exception {
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                "-keyout", key.toString(), "-out", cert.toString(), "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
                .redirectErrorStream(true).start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).as("openssl finished").isTrue();
        assertThat(openssl.exitValue()).as("openssl: " + output).isZero();
    }

    private static SSLContext trusting(Path cert) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(cert)) {
            trust.setCertificateEntry("fencegate", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
