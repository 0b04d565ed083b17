package io.fencegate.store.jdbc;

import io.fencegate.store.GuardRule;
import io.fencegate.store.StoreLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link TokenColumnGuard} for code without jOOQ (JdbcTemplate, plain JDBC, a native query): the
 * same guard as SQL text to put into the application's own UPDATE, with the values to bind in the
 * order of its {@code ?} marks. The text is the same on PostgreSQL, MySQL/MariaDB and H2 (unquoted
 * plain column names, {@code <} and {@code <=}):
 *
 * <pre>{@code
 * TokenColumnSql guard = TokenColumnSql.of("token", GuardRule.STRICT);
 * SqlFragment set = guard.advanceTo(t), admitted = guard.admits(t);
 * int rows = jdbc.update("UPDATE price SET cents = ?, " + set.sql() + " WHERE sku = ? AND " + admitted.sql(),
 *         SqlFragment.parameters(cents, set, sku, admitted));   // 1 applied, 0 stale
 * }</pre>
 *
 * <p>The count is exact as with {@link TokenColumnGuard}: the guard sits in the WHERE clause, so
 * MariaDB's found rows and changed rows agree under {@code STRICT} (the token always changes).
 */
public final class TokenColumnSql {
    private final String token;
    private final String fence;
    private final GuardRule rule;

    private TokenColumnSql(String token, String fence, GuardRule rule) {
        this.token = column("token", token);
        this.fence = fence == null ? null : column("fence", fence);
        this.rule = Objects.requireNonNull(rule, "rule");
    }

    /** A guard on a token column alone: writes are guarded, reads cannot be fenced. */
    public static TokenColumnSql of(String tokenColumn, GuardRule rule) {
        return new TokenColumnSql(tokenColumn, null, rule);
    }

    /** A guard on a token column and a fence column (raised by fenced reads, see {@link TokenColumnGuard#claim}). */
    public static TokenColumnSql of(String tokenColumn, String fenceColumn, GuardRule rule) {
        return new TokenColumnSql(tokenColumn, Objects.requireNonNull(fenceColumn, "fenceColumn"), rule);
    }

    /** The WHERE condition admitting a write with {@code t}: {@code token < ?} (STRICT) or {@code token <= ?}, after {@code fence <= ?}. */
    public SqlFragment admits(long t) {
        StoreLimits.checkToken(t);
        String byToken = token + (rule == GuardRule.STRICT ? " < ?" : " <= ?");
        return fence == null ? new SqlFragment(byToken, List.of(t)) : new SqlFragment(fence + " <= ? AND " + byToken, List.of(t, t));
    }

    /** The SET assignments of an admitted write: {@code token = ?} (and {@code fence = ?}), both {@code t}. */
    public SqlFragment advanceTo(long t) {
        StoreLimits.checkToken(t);
        return fence == null ? new SqlFragment(token + " = ?", List.of(t)) : new SqlFragment(token + " = ?, " + fence + " = ?", List.of(t, t));
    }

    /** Names go into SQL text as written: plain identifiers only, so no quoting differs between databases. */
    private static String column(String what, String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException(what + " column must be a plain name (letters, digits, '_', at most 63), was '" + name + "'");
        }
        return name;
    }

    /** SQL text with {@code ?} marks, and the values they take, in order. */
    public record SqlFragment(String sql, List<Object> values) {
        public SqlFragment {
            Objects.requireNonNull(sql, "sql");
            values = List.copyOf(values);
        }

        /**
         * The values of a whole statement in the order of its {@code ?} marks: each argument is
         * either a value of the application's own or a fragment, which stands for its values.
         */
        public static Object[] parameters(Object... valuesAndFragments) {
            List<Object> all = new ArrayList<>();
            for (Object part : valuesAndFragments) {
                if (part instanceof SqlFragment fragment) {
                    all.addAll(fragment.values());
                } else {
                    all.add(part);
                }
            }
            return all.toArray();
        }
    }
}
