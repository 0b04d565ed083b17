package io.fencegate.client;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The client's own transport: Apache HttpClient 5, classic (blocking) I/O on a pool of kept-alive
 * HTTP/1.1 connections. The calling thread writes the request and reads the answer itself, so an
 * exchange costs no thread hand-off, where the JDK client passes every answer from its selector
 * thread to the waiting one (docs/PERFORMANCE.md, "Performance: where a request's time goes", has the CPU per request of each).
 *
 * <p>Bounds: connect, waiting for a pooled connection and every read are each limited to the call's
 * bound, and a timer aborts the exchange when the bound has passed in all, so a gateway that trickles
 * its answer cannot hold a call longer either. Nothing is retried: a write whose answer was lost may
 * have applied, and only the caller can decide to resend it (with the same token, DESIGN.md).
 */
final class ApacheTransport implements Transport {
    /** Aborts exchanges past their bound; one daemon thread for every client, idle between deadlines. */
    private static final ScheduledThreadPoolExecutor DEADLINES = deadlines();

    private final CloseableHttpClient http;
    private final String base;
    private final String authorization;
    private final RequestConfig usual;
    private final Duration usualBound;

    ApacheTransport(URI base, String authorization, Duration timeout) {
        this.base = base.toString();
        this.authorization = authorization;
        this.usualBound = timeout;
        this.usual = config(timeout);
        ConnectionConfig connections = ConnectionConfig.custom()
                .setConnectTimeout(Timeout.of(timeout))
                .setSocketTimeout(Timeout.of(timeout))
                // The gateway closes idle connections (after twice its request timeout): look before reuse.
                .setValidateAfterInactivity(TimeValue.ofSeconds(1))
                .build();
        this.http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        // No cap, like the JDK client: each call in flight has its own thread and connection.
                        .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
                        .setMaxConnPerRoute(Integer.MAX_VALUE).setMaxConnTotal(Integer.MAX_VALUE)
                        .setDefaultConnectionConfig(connections)
                        .build())
                .setDefaultRequestConfig(usual)
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .build();
    }

    private static RequestConfig config(Duration bound) {
        return RequestConfig.custom()
                .setConnectionRequestTimeout(Timeout.of(bound))
                .setResponseTimeout(Timeout.of(bound))
                .build();
    }

    @Override
    public HttpAnswer exchange(HttpCall call) throws IOException {
        HttpUriRequestBase request = new HttpUriRequestBase(call.method(), URI.create(base + call.path()));
        if (!call.bound().equals(usualBound)) {
            request.setConfig(config(call.bound()));
        }
        request.setHeader("Accept", HttpAnswer.ACCEPT);
        if (authorization != null) {
            request.setHeader("Authorization", authorization);
        }
        if (call.token() > 0) {
            request.setHeader(HttpAnswer.FENCING_TOKEN, Long.toString(call.token()));
        }
        if (call.body() != null) {
            request.setHeader("Content-Type", call.contentType()); // as given: no charset parameter added
            request.setEntity(new ByteArrayEntity(call.body(), null));
        }
        Abort abort = new Abort(request);
        ScheduledFuture<?> deadline = DEADLINES.schedule(abort, call.bound().toNanos(), TimeUnit.NANOSECONDS);
        try {
            return http.execute(request, r -> new HttpAnswer(r.getCode(), value(r.getFirstHeader("Content-Type")),
                    value(r.getFirstHeader(HttpAnswer.FENCING_TOKEN)),
                    r.getEntity() == null ? new byte[0] : EntityUtils.toByteArray(r.getEntity())));
        } catch (ConnectTimeoutException e) {
            throw timedOut(new HttpConnectTimeoutException("connect timed out: " + e.getMessage()), e);
        } catch (SocketTimeoutException e) {
            throw timedOut(new HttpTimeoutException("request timed out after " + call.bound().toMillis() + " ms"), e);
        } catch (IOException | RuntimeException e) {
            // An abort fails the exchange wherever it was: an IOException mid-read, an
            // IllegalStateException ("endpoint … released") mid-connect or mid-lease.
            if (abort.fired) {
                throw timedOut(new HttpTimeoutException("request timed out after " + call.bound().toMillis() + " ms"), e);
            }
            throw e;
        } finally {
            deadline.cancel(false);
        }
    }

    /** The deadline's task; says it fired before it aborts, so the failure it causes reads as a timeout. */
    private static final class Abort implements Runnable {
        private final HttpUriRequestBase request;
        private volatile boolean fired;

        Abort(HttpUriRequestBase request) {
            this.request = request;
        }

        @Override
        public void run() {
            fired = true;
            request.cancel();
        }
    }

    private static String value(Header h) {
        return h == null ? "" : h.getValue();
    }

    private static IOException timedOut(IOException timeout, Exception cause) {
        timeout.initCause(cause);
        return timeout;
    }

    private static ScheduledThreadPoolExecutor deadlines() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fencegate-client-deadlines");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true); // a finished call's deadline leaves the queue at once
        return timer;
    }
}
