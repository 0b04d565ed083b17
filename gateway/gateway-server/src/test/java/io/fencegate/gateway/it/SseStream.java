package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A server-sent-events stream read on its own thread ({@code /ui/events}, {@code /v1/leases/{id}/events}),
 * with an optional API key; {@link #close()} closes the connection, so the gateway sees the viewer leave.
 */
final class SseStream implements AutoCloseable {
    record Event(String name, JsonObject data) {}

    private static final Event END = new Event("<closed>", new JsonObject());
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final InputStream body;

    private SseStream(InputStream body) {
        this.body = body;
        Thread reader = new Thread(this::read, "sse-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Opens {@code url} (200 and {@code text/event-stream} expected), sending {@code apiKey} if not null. */
    static SseStream open(URI url, String apiKey) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30))
                .header("Accept", "text/event-stream").GET();
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<InputStream> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            String problem = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
            throw new AssertionError(url + " answered " + response.statusCode() + ": " + problem);
        }
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        return new SseStream(response.body());
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String name = null;
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ") && name != null) {
                    events.add(new Event(name, new JsonObject(line.substring(6))));
                    name = null;
                }
            }
        } catch (IOException closed) {
            // close() ended it, or the server did: END follows either way
        } finally {
            events.add(END);
        }
    }

    /** The next event within {@code timeoutMs}; fails if none came or the stream ended. */
    Event next(long timeoutMs) throws InterruptedException {
        Event event = events.poll(Math.max(1, timeoutMs), TimeUnit.MILLISECONDS);
        assertThat(event).as("an event within %d ms", timeoutMs).isNotNull();
        assertThat(event).as("an event before the stream closed").isNotSameAs(END);
        return event;
    }

    /** The first event {@code wanted} accepts within {@code timeoutMs}, skipping the others. */
    Event await(long timeoutMs, Predicate<Event> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Event last = null;
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            Event event = left <= 0 ? null : events.poll(left, TimeUnit.MILLISECONDS);
            if (event == null || event == END) {
                throw new AssertionError((event == END ? "the stream ended" : "no such event within " + timeoutMs
                        + " ms") + "; last seen: " + last);
            }
            if (wanted.test(event)) {
                return event;
            }
            last = event;
        }
    }

    /** True if the server ended the stream within {@code timeoutMs}. */
    boolean closed(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (long left = timeoutMs; left > 0; left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
            if (events.poll(left, TimeUnit.MILLISECONDS) == END) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        body.close();
    }
}
