package io.fencegate.client;

import java.io.IOException;

/**
 * How one call reaches the gateway: blocking, on the calling thread, bounded by {@link HttpCall#bound()}.
 * Timeouts fail with {@link java.net.http.HttpTimeoutException} (a connect that timed out with
 * {@link java.net.http.HttpConnectTimeoutException}), a refused connection with a
 * {@link java.net.ConnectException}, whichever transport runs: callers tell "never sent" from "may
 * have applied" by these types.
 */
interface Transport {
    HttpAnswer exchange(HttpCall call) throws IOException;
}
