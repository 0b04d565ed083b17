package io.fencegate.examples.spring;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.GuardRowTransactions;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** fencegate's pieces as Spring beans: the issuer, and guard-row transactions on Boot's DataSource. */
@Configuration(proxyBeanMethods = false)
public class FencingConfiguration {

    /** Leases with fencing tokens; closed with the application context. */
    @Bean(destroyMethod = "close")
    public LeaseIssuer leaseIssuer(@Value("${fencegate.zookeeper.connect-string}") String connectString) {
        return ZooKeeperLeaseIssuer.builder().connectString(connectString)
                .operationTimeout(Duration.ofSeconds(5)).build();
    }

    /**
     * jOOQ on the DataSource Spring Boot built. fencegate's guard table is migrated first (Flyway
     * refuses a non-empty schema without its history table), then the shop's own tables.
     */
    @Bean
    public DSLContext dsl(DataSource dataSource) {
        FencegateSchema.migrate(dataSource);
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
        ShopTables.create(dsl);
        return dsl;
    }

    @Bean
    public GuardRowTransactions guardRowTransactions(DSLContext dsl) {
        return GuardRowTransactions.of(dsl, GuardRule.STRICT);
    }
}
