package io.fencegate.spring.boot;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.GuardRowTransactions;
import io.fencegate.store.jdbc.TokenColumnGuard;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.tools.jdbc.JDBCUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

/**
 * Guarded SQL on the application's own DataSource: {@link GuardRowTransactions} (any number of
 * statements under a locked guard row) and a {@link TokenColumnGuard} (a token column on the
 * application's rows). They use the application's jOOQ {@code DSLContext} if it has one (so they
 * join Spring's transactions the way its own jOOQ code does), else a jOOQ context on the DataSource.
 * fencegate's tables are migrated first unless {@code fencegate.jdbc.migrate=false}.
 */
// Boot 3's names and Boot 4's: without Boot 4's, the DataSource is not there yet when the
// single-candidate condition below is evaluated, and no guard bean is made.
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jooq.JooqAutoConfiguration",
        "org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration"})
@ConditionalOnClass({GuardRowTransactions.class, DSLContext.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "fencegate.jdbc", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateJdbcAutoConfiguration {

    /** fencegate's tables, migrated once before any guard bean is used. */
    public static final class FencegateTables {
        private FencegateTables() { }
    }

    @Bean
    @ConditionalOnMissingBean
    public FencegateTables fencegateTables(DataSource dataSource, FencegateProperties properties) {
        if (properties.getJdbc().isMigrate()) {
            SchemaMigration.migrate(dataSource, properties.getJdbc().getSchema());
        }
        return new FencegateTables();
    }

    @Bean
    @ConditionalOnMissingBean
    public GuardRowTransactions guardRowTransactions(DataSource dataSource, ObjectProvider<DSLContext> dsl,
            FencegateTables tables, FencegateProperties properties) {
        DSLContext context = dsl.getIfUnique(() -> DSL.using(dataSource, dialectOf(dataSource)));
        return GuardRowTransactions.of(context, rule(properties));
    }

    @Bean
    @ConditionalOnMissingBean
    public TokenColumnGuard tokenColumnGuard(FencegateProperties properties) {
        FencegateProperties.Jdbc jdbc = properties.getJdbc();
        Field<Long> token = column("fencegate.jdbc.token-column", jdbc.getTokenColumn());
        return jdbc.getFenceColumn() == null
                ? TokenColumnGuard.of(token, rule(properties))
                : TokenColumnGuard.of(token, column("fencegate.jdbc.fence-column", jdbc.getFenceColumn()), rule(properties));
    }

    private static Field<Long> column(String property, String name) {
        PropertyChecks.required(property, name, "(a column name)");
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new InvalidConfigurationPropertyValueException(property, name,
                    "must be a plain column name (letters, digits, '_', at most 63)");
        }
        return field(name(name), Long.class);
    }

    private static GuardRule rule(FencegateProperties properties) {
        return GuardRule.valueOf(properties.getJdbc().getGuardRule().name());
    }

    private static SQLDialect dialectOf(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return JDBCUtils.dialect(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("fencegate: cannot reach the DataSource to learn its SQL dialect", e);
        }
    }
}
