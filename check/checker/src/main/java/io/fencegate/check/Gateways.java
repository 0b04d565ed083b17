package io.fencegate.check;

import io.fencegate.client.FencegateClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The gateways a process's clients call: each is its base URL (what every operation records as its
 * {@code gateway}, and what a fault on one gateway names as its scope) and a client whose pooled
 * connections can be dropped once the gateway has shown them dead.
 */
final class Gateways {

    /** One gateway. Its client is replaced, not closed: calls still in flight on the old one finish there. */
    static final class Gateway {
        private final int index;
        private final String url;
        private final AtomicReference<FencegateClient> client;
        private final Gateways owner;

        private Gateway(int index, String url, FencegateClient client, Gateways owner) {
            this.index = index;
            this.url = url;
            this.client = new AtomicReference<>(client);
            this.owner = owner;
        }

        /** Its place in the list, 0 up. */
        int index() {
            return index;
        }

        String url() {
            return url;
        }

        FencegateClient client() {
            return client.get();
        }

        /**
         * A call on {@code failed} found the gateway gone (refused, reset, no answer): every kept-alive
         * connection to it is dead, and a request sent on one fails after it was written, which can only
         * be recorded as unknown. A fresh client opens new connections, which a down gateway refuses
         * before anything is sent.
         */
        void dropConnections(FencegateClient failed) {
            client.compareAndSet(failed, owner.build(url));
        }
    }

    private final List<Gateway> all = new ArrayList<>();
    private final String apiKey;
    private final Duration timeout;

    Gateways(List<URI> urls, String apiKey, Duration timeout) {
        this.apiKey = apiKey;
        this.timeout = timeout;
        for (URI uri : urls) {
            String url = base(uri);
            all.add(new Gateway(all.size(), url, build(url), this));
        }
    }

    /** A gateway's base URL as operations and faults name it: with one trailing slash. */
    static String base(URI uri) {
        String s = uri.toString();
        return s.endsWith("/") ? s : s + "/";
    }

    Gateway get(int i) {
        return all.get(i);
    }

    int size() {
        return all.size();
    }

    private FencegateClient build(String url) {
        FencegateClient.Builder b = FencegateClient.builder(url).timeout(timeout);
        if (apiKey != null && !apiKey.isBlank()) {
            b.apiKey(apiKey);
        }
        return b.build();
    }
}
