package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fencegate.client.Lease;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gateway that dies leaves the connections kept alive to it dead. A call sent on one fails after
 * its request was written and can only be unknown; after the first such failure the clients drop
 * them, so the next calls find the gateway refusing, which is known not to have happened.
 */
class ClientLoopConnectionsTest {
    private static final int CONNECTIONS = 4;

    @Test
    void deadGatewaysPooledConnectionsAreDroppedAfterTheFirstBrokenCall() throws Exception {
        // A stand-in gateway that grants every lease, once all CONNECTIONS calls are in (so each has its own connection).
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        CountDownLatch allIn = new CountDownLatch(CONNECTIONS);
        server.createContext("/v1/leases", exchange -> {
            allIn.countDown();
            try {
                allIn.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = "{\"lock\":\"main/k\",\"leaseId\":\"l1\",\"token\":7,\"expiresAt\":1}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(201, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.setExecutor(Executors.newFixedThreadPool(CONNECTIONS));
        server.start();
        URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
        RunOptions options = new RunOptions(List.of(url), Workload.MUTEX, 5, 1, 0, "main", "pool", 1, 1000, 0, 0,
                Control.NONE, List.of(), null).validate();
        Gateways gateways = new Gateways(options.gateways(), null, Duration.ofSeconds(5));
        History history = new History();
        ClientLoop loop = new ClientLoop(options, gateways, history, 0, Clock.nowUs() + 60_000_000, null);
        ExecutorService callers = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            Callable<Lease> acquire = () -> loop.acquire(gateways.get(0), "k");
            for (Future<Lease> f : callers.invokeAll(Collections.nCopies(CONNECTIONS, acquire))) {
                assertThat(f.get()).isNotNull();
            }
        } finally {
            callers.shutdownNow();
        }
        server.stop(0); // the gateway dies: its kept-alive connections close, its port refuses
        ((ExecutorService) server.getExecutor()).shutdownNow();
        int before = history.ops().size();
        for (int i = 0; i < CONNECTIONS; i++) {
            loop.acquire(gateways.get(0), "k");
        }
        List<Op> afterDeath = history.ops().subList(before, history.ops().size());
        String seen = afterDeath.stream().map(o -> o.outcome() + " " + o.note()).toList().toString();
        assertThat(afterDeath).as(seen).hasSize(CONNECTIONS);
        assertThat(afterDeath.stream().filter(o -> o.outcome() == Outcome.UNKNOWN)).as(seen).hasSizeLessThanOrEqualTo(1);
        assertThat(afterDeath.get(CONNECTIONS - 1).outcome()).as(seen).isEqualTo(Outcome.FAIL);
    }
}
