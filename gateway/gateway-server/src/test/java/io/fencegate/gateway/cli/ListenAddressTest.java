package io.fencegate.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListenAddressTest {

    @Test
    void aPortInUseIsNamedWithItsAddressAndTheConfigKey() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> new ListenAddress("127.0.0.1", port, false).probe())
                    .hasMessage("cannot listen on 127.0.0.1:" + port + ": the port is already in use"
                            + " (is another gateway running?); choose another with server.port (or --port)");
            assertThatThrownBy(() -> new ListenAddress("127.0.0.1", port, true).probe())
                    .hasMessageEndingWith("choose another with --port");
        }
    }

    @Test
    void aFreePortAndPortZeroPassTheProbe() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        new ListenAddress("127.0.0.1", port, false).probe();
        new ListenAddress("127.0.0.1", 0, false).probe();
    }

    /** The port taken between the probe and the real bind: Vert.x's failure is recognised and worded alike. */
    @Test
    void theRealBindsFailureIsRecognisedAsABindFailure() throws Exception {
        Vertx vertx = Vertx.vertx();
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Throwable failure = null;
            try {
                vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port))
                        .requestHandler(r -> r.response().end()).listen().await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                failure = e;
            }
            assertThat(failure).isNotNull();
            assertThat(ListenAddress.isBindFailure(failure)).isTrue();
            assertThat(new ListenAddress("127.0.0.1", port, false).cannotListen(failure))
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + ": the port is already in use");
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }
}
