package io.fencegate.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;

/**
 * The transport when the user supplies a JDK {@link HttpClient} (for its TLS, proxy or executor
 * settings): a blocking {@link HttpClient#send} with the call's bound as its request timeout. That
 * timeout ends when the response's headers arrive, so a gateway that trickles a body is not cut off
 * by it (the default transport's deadline is on the whole call). It costs more CPU a request than the
 * default transport: its selector thread hands every answer to the waiting thread.
 */
final class JdkTransport implements Transport {
    private final HttpClient http;
    private final URI base;
    private final String authorization;

    JdkTransport(HttpClient http, URI base, String authorization) {
        this.http = http;
        this.base = base;
        this.authorization = authorization;
    }

    @Override
    public HttpAnswer exchange(HttpCall call) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(call.path())).timeout(call.bound())
                .header("Accept", HttpAnswer.ACCEPT)
                .method(call.method(), call.body() == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(call.body()));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (call.token() > 0) {
            b.header(HttpAnswer.FENCING_TOKEN, Long.toString(call.token()));
        }
        if (call.contentType() != null) {
            b.header("Content-Type", call.contentType());
        }
        try {
            // send, not sendAsync: sendAsync completes through CompletableFuture's default executor,
            // which on one or two CPUs starts a thread per request.
            HttpResponse<byte[]> r = http.send(b.build(), BodyHandlers.ofByteArray());
            return new HttpAnswer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""),
                    r.headers().firstValue(HttpAnswer.FENCING_TOKEN).orElse(""), r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the gateway");
        }
    }
}
