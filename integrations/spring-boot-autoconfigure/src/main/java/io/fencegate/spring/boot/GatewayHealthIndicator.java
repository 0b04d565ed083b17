package io.fencegate.spring.boot;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** UP when the gateway's {@code GET /health} answers 200 within the client's timeout. */
final class GatewayHealthIndicator extends AbstractHealthIndicator {
    private final URI health;
    private final Duration timeout;
    private final HttpClient http;

    GatewayHealthIndicator(URI health, Duration timeout) {
        super("fencegate gateway health check failed");
        this.health = health;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(health).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.discarding());
        (answer.statusCode() == 200 ? builder.up() : builder.down())
                .withDetail("url", health.toString()).withDetail("status", answer.statusCode());
    }
}
