package io.fencegate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class NamedSqlTest {

    @Test
    void placeholdersBecomePositionalInOrder() {
        NamedSql sql = NamedSql.parse("UPDATE stock SET qty = qty - :n WHERE sku = :sku AND qty >= :n");

        assertThat(sql.names()).containsExactly("n", "sku", "n");
        assertThat(sql.positional()).isEqualTo("UPDATE stock SET qty = qty - ? WHERE sku = ? AND qty >= ?");
        assertThat(sql.dollarNumbered()).isEqualTo("UPDATE stock SET qty = qty - $1 WHERE sku = $2 AND qty >= $3");
        assertThat(sql.bind(Map.of("n", 2, "sku", "A-1"))).containsExactly(2, "A-1", 2);
    }

    @Test
    void castsAndQuotedTextAreNotPlaceholders() {
        NamedSql sql = NamedSql.parse("SELECT ':not' || 'it''s :no', :id::text");

        assertThat(sql.names()).containsExactly("id");
        assertThat(sql.positional()).isEqualTo("SELECT ':not' || 'it''s :no', ?::text");
    }

    @Test
    void missingParameterIsAClearError() {
        NamedSql sql = NamedSql.parse("DELETE FROM t WHERE id = :id");

        assertThatThrownBy(() -> sql.bind(Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'id'");
    }
}
