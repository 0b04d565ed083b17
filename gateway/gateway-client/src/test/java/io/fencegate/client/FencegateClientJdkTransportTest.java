package io.fencegate.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Every test of {@link FencegateClientTest} on a JDK HttpClient given to the builder (with the JDK's
 * default executor), but the trickling answer.
 */
class FencegateClientJdkTransportTest extends FencegateClientTest {
    @Override
    FencegateClient.Builder builder(URI base) {
        return FencegateClient.builder(base).httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build());
    }

    @Override
    @Test
    @Disabled("the JDK client's request timeout ends at the response's headers (Builder.httpClient says so)")
    void aTricklingAnswerIsBoundedByTheRequestTimeout() {}
}
