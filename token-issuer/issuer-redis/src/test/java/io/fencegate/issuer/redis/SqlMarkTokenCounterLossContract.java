package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The counter-loss contract with a {@link JdbcTokenHighWaterMark} in a real database; each issuer
 * has its own data source, as gateways on separate hosts would.
 */
abstract class SqlMarkTokenCounterLossContract extends TokenCounterLossContract {
    private MarkDatabase db;

    abstract MarkDatabase.Kind kind();

    @BeforeEach
    @Override
    void start() throws Exception {
        db = MarkDatabase.create(kind());
        super.start();
    }

    @AfterEach
    @Override
    void stop() throws Exception {
        try {
            super.stop();
        } finally {
            db.close();
        }
    }

    @Override
    TokenHighWaterMark newMark() throws Exception {
        return new JdbcTokenHighWaterMark(db.dataSource(), PREFIX, Duration.ofSeconds(10));
    }

    /** A mark under another name (or in another database) is another mark: refused on a prefix another covers. */
    @Test
    void anIssuerWithAnotherMarkRowIsRefused() {
        assertThatThrownBy(() -> newIssuer(new JdbcTokenHighWaterMark(db.dataSource(), "another-mark", Duration.ofSeconds(10)))
                .close())
                .isInstanceOf(ForeignMarkException.class)
                .hasMessageContaining("covered by another high-water mark (row " + PREFIX + " #")
                .hasMessageContaining("JdbcTokenHighWaterMark[another-mark] (row another-mark #");
    }

    @Override
    void loseMark() throws Exception {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement delete = c.prepareStatement("DELETE FROM fencegate_token_mark WHERE name = ?")) {
            delete.setString(1, PREFIX);
            delete.executeUpdate();
        }
    }
}
