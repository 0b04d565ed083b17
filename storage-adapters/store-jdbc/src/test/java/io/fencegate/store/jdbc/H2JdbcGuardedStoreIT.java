package io.fencegate.store.jdbc;

import io.fencegate.store.testkit.OutageHarness;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;

/**
 * The store contract on an in-memory H2 database of its own. For the outage test the same
 * database is also served by H2's TCP server, so a proxy can cut the link like a real server's.
 */
class H2JdbcGuardedStoreIT extends AbstractJdbcContractIT {
    private Server tcp;

    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }

    @AfterAll
    void stopTcpServer() {
        if (tcp != null) {
            tcp.stop();
        }
    }

    @Override
    protected OutageHarness outageHarness() {
        return OutageHarness.tcp(new InetSocketAddress("127.0.0.1", tcpServer().getPort()), (proxy, rule) ->
                JdbcGuardedStore.open(db.options().jdbcUrl("jdbc:h2:tcp://127.0.0.1:" + proxy.getPort() + "/mem:" + db.name())
                        .rule(rule).poolSize(2).migrate(false)
                        .connectTimeout(Duration.ofSeconds(2)).queryTimeout(Duration.ofSeconds(3))));
    }

    private synchronized Server tcpServer() {
        if (tcp == null) {
            try (ServerSocket probe = new ServerSocket(0)) {
                int port = probe.getLocalPort();
                probe.close();
                tcp = Server.createTcpServer("-tcpPort", Integer.toString(port)).start();
            } catch (SQLException | java.io.IOException e) {
                throw new IllegalStateException("cannot start H2's TCP server", e);
            }
        }
        return tcp;
    }
}
