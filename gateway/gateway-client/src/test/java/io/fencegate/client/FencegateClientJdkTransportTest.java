package io.fencegate.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Every test of {@link FencegateClientTest} on a JDK HttpClient given to the builder (with the JDK's
 * default executor). The whole-call bound on a trickling answer is the default transport's alone
 * ({@link TricklingAnswerTest}).
 */
class FencegateClientJdkTransportTest extends FencegateClientTest {
    @Override
    FencegateClient.Builder builder(URI base) {
        return FencegateClient.builder(base).httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build());
    }
}
