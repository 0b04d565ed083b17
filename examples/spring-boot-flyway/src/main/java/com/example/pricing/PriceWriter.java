package com.example.pricing;

import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.TokenColumnSql;
import io.fencegate.store.jdbc.TokenColumnSql.SqlFragment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** A guarded write from JdbcTemplate, no jOOQ: the guard's SQL text inside the application's own UPDATE. */
@Component
public class PriceWriter {
    private static final TokenColumnSql GUARD = TokenColumnSql.of("token", GuardRule.STRICT);
    private final JdbcTemplate jdbc;

    PriceWriter(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** 1 if written, 0 if a write with a newer token got there first (the caller's lease is stale). */
    public int setPrice(String sku, int cents, long token) {
        SqlFragment set = GUARD.advanceTo(token);
        SqlFragment admitted = GUARD.admits(token);
        return jdbc.update("UPDATE price SET cents = ?, " + set.sql() + " WHERE sku = ? AND " + admitted.sql(),
                SqlFragment.parameters(cents, set, sku, admitted));
    }
}
