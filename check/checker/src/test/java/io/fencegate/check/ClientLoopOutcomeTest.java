package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;

/** Which failures mean "did not happen" and which "may have happened". */
class ClientLoopOutcomeTest {

    @Test
    void refusalsAndRefusedConnectionsDidNotHappen() {
        assertThat(ClientLoop.failure(new FencegateException(403, "urn:fencegate:problem:token-not-granted", "", ""))).isEqualTo(Outcome.FAIL);
        assertThat(ClientLoop.failure(new UncheckedIOException(new ConnectException("Connection refused")))).isEqualTo(Outcome.FAIL);
    }

    @Test
    void serverErrorsTimeoutsAndBrokenLinksMayHaveHappened() {
        assertThat(ClientLoop.failure(new FencegateException(503, "urn:fencegate:problem:unavailable", "", ""))).isEqualTo(Outcome.UNKNOWN);
        assertThat(ClientLoop.failure(new UncheckedIOException(new HttpTimeoutException("request timed out")))).isEqualTo(Outcome.UNKNOWN);
        assertThat(ClientLoop.failure(new UncheckedIOException(new IOException("Connection reset")))).isEqualTo(Outcome.UNKNOWN);
    }

    @Test
    void onlyABrokenLinkDropsAGatewaysConnections() {
        assertThat(ClientLoop.linkBroken(new UncheckedIOException(new ConnectException("Connection refused")))).isTrue();
        assertThat(ClientLoop.linkBroken(new UncheckedIOException(new IOException("Connection reset")))).isTrue();
        assertThat(ClientLoop.linkBroken(new UncheckedIOException(new HttpTimeoutException("request timed out")))).isFalse();
        assertThat(ClientLoop.linkBroken(new FencegateException(503, "urn:fencegate:problem:unavailable", "", ""))).isFalse();
    }
}
