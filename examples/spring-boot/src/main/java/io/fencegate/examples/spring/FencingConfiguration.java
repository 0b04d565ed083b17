package io.fencegate.examples.spring;

import io.fencegate.spring.boot.FencegateJdbcAutoConfiguration.FencegateTables;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The one bean the shop adds: jOOQ on the DataSource Spring Boot built. fencegate's starter makes
 * the rest from {@code application.properties}: the {@code LeaseIssuer} (ZooKeeper) and
 * {@code GuardRowTransactions} on this DSLContext. Taking {@link FencegateTables} orders the
 * shop's tables after fencegate's migration (Flyway refuses a non-empty schema without its history).
 */
@Configuration(proxyBeanMethods = false)
public class FencingConfiguration {

    @Bean
    public DSLContext dsl(DataSource dataSource, FencegateTables fencegateTables) {
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
        ShopTables.create(dsl);
        return dsl;
    }
}
