package io.fencegate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Which beans each property combination gives, and how a wrong one fails start-up; no backend is contacted. */
class FencegateAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencegateClientAutoConfiguration.class,
                    FencegateIssuerAutoConfiguration.class, FencegateZooKeeperIssuerAutoConfiguration.class,
                    FencegateRedisIssuerAutoConfiguration.class, FencegateSqlIssuerAutoConfiguration.class,
                    FencegateJdbcAutoConfiguration.class,
                    FencegateHealthAutoConfiguration.class, FencegateShedLockAutoConfiguration.class,
                    FencegateIntegrationAutoConfiguration.class));

    @Test
    void withoutPropertiesNothingIsCreated() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(LeaseIssuer.class);
            assertThat(context).doesNotHaveBean(MultiLock.class);
            assertThat(context).doesNotHaveBean(FencegateClient.class);
            assertThat(context).doesNotHaveBean("fencegateIssuerHealthIndicator");
        });
    }

    @Test
    void clientUrlGivesAClientAndItsHealthIndicator() {
        runner.withPropertyValues("fencegate.client.url=http://127.0.0.1:1", "fencegate.client.timeout=2s")
                .run(context -> {
                    assertThat(context).hasSingleBean(FencegateClient.class);
                    assertThat(context).hasBean("fencegateClientHealthIndicator");
                    assertThat(context).doesNotHaveBean(LeaseIssuer.class);
                });
    }

    @Test
    void anUnreachableGatewayIsReportedDown() {
        runner.withPropertyValues("fencegate.client.url=http://127.0.0.1:1", "fencegate.client.timeout=2s")
                .run(context -> assertThat(context.getBean("fencegateClientHealthIndicator",
                        org.springframework.boot.actuate.health.HealthIndicator.class).health().getStatus())
                        .isEqualTo(org.springframework.boot.actuate.health.Status.DOWN));
    }

    @Test
    void staleRefusalsAreCountedByLockPrefixOnly() {
        runner.withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .run(context -> {
                    LeaseMeters meters = context.getBean(LeaseMeters.class);
                    meters.staleRefused("stock/sku-42");
                    meters.staleRefused("stock/sku-7");
                    var registry = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
                    assertThat(registry.get("fencegate.guard.stale").tag("prefix", "stock").counter().count()).isEqualTo(2);
                    assertThat(registry.find("fencegate.guard.stale").counters()).hasSize(1);
                });
        runner.run(context -> assertThat(context).doesNotHaveBean(LeaseMeters.class));
    }

    @Test
    void clientUrlWithoutTheClientModuleIsIgnored() {
        runner.withClassLoader(new FilteredClassLoader(FencegateClient.class))
                .withPropertyValues("fencegate.client.url=http://127.0.0.1:1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("fencegateClient");
                });
    }

    @Test
    void aClientUrlThatIsNotHttpFailsNamingTheProperty() {
        runner.withPropertyValues("fencegate.client.url=ftp://127.0.0.1/x").run(context ->
                assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.client.url").hasMessageContaining("ftp://127.0.0.1/x"));
    }

    @Test
    void anUnknownBackendFailsNamingThePropertyAndTheBackendsFound() {
        runner.withPropertyValues("fencegate.issuer.backend=etcd").run(context ->
                assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.backend").hasMessageContaining("etcd")
                        .hasMessageContaining("[redis, sql, zookeeper]"));
    }

    @Test
    void zookeeperWithoutConnectStringFailsNamingTheProperty() {
        runner.withPropertyValues("fencegate.issuer.backend=zookeeper").run(context ->
                assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.zookeeper.connect-string"));
    }

    @Test
    void aNegativeSessionTimeoutFailsNamingTheProperty() {
        runner.withPropertyValues("fencegate.issuer.backend=zookeeper",
                "fencegate.issuer.zookeeper.connect-string=127.0.0.1:1", "fencegate.issuer.zookeeper.session-timeout=-1s")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("fencegate.issuer.zookeeper.session-timeout"));
    }

    @Test
    void withoutCuratorTheZooKeeperBackendIsMissingAndSaysWhichModuleToAdd() {
        ApplicationContextRunner noCurator = runner.withClassLoader(new FilteredClassLoader(CuratorFramework.class));
        noCurator.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseIssuer.class));
        noCurator.withPropertyValues("fencegate.issuer.backend=zookeeper",
                "fencegate.issuer.zookeeper.connect-string=127.0.0.1:2181")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("fencegate.issuer.backend")
                        .hasMessageContaining("found: [redis, sql]")
                        .hasMessageContaining("io.fencegate:fencegate-issuer-zookeeper"));
    }

    @Test
    void withoutTheRedisModuleOnlyZooKeeperIsOffered() {
        runner.withClassLoader(new FilteredClassLoader(RedisLeaseIssuer.class))
                .withPropertyValues("fencegate.issuer.backend=redis")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("found: [sql, zookeeper]"));
    }

    @Test
    void sqlChosenOnTheApplicationsDataSourceGivesASqlIssuerAndItsHealthIndicator() {
        runner.withUserConfiguration(H2DataSource.class)
                .withPropertyValues("fencegate.jdbc.enabled=false", "fencegate.issuer.backend=sql")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LeaseIssuer.class).hasBean("fencegateIssuerHealthIndicator");
                    assertThat(context.getBean(LeaseIssuer.class)).isInstanceOf(SqlLeaseIssuer.class);
                    assertThat(context).hasSingleBean(MultiLock.class); // lease groups on that issuer
                });
    }

    @Test
    void withoutTheSqlModuleTheSqlBackendIsMissingAndSaysWhichModuleToAdd() {
        ApplicationContextRunner noSql = runner.withClassLoader(new FilteredClassLoader(SqlLeaseIssuer.class));
        noSql.withUserConfiguration(H2DataSource.class).withPropertyValues("fencegate.jdbc.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseIssuer.class));
        noSql.withPropertyValues("fencegate.issuer.backend=sql")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.backend")
                        .hasMessageContaining("found: [redis, zookeeper]")
                        .hasMessageContaining("io.fencegate:fencegate-issuer-sql"));
    }

    @Test
    void withNoBackendModuleAtAllTheFailureStillSaysWhichModulesToAdd() {
        runner.withClassLoader(new FilteredClassLoader(SqlLeaseIssuer.class, RedisLeaseIssuer.class, CuratorFramework.class))
                .withPropertyValues("fencegate.issuer.backend=sql")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("found: []").hasMessageContaining("io.fencegate:fencegate-issuer-sql"));
    }

    @Test
    void sqlWithoutADataSourceOrJdbcUrlFailsNamingTheProperty() {
        runner.withPropertyValues("fencegate.issuer.backend=sql").run(context ->
                assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.sql.jdbc-url")
                        .hasMessageContaining("no single DataSource"));
    }

    @Test
    void wrongSqlPropertiesFailNamingThePropertyAndTheValue() {
        ApplicationContextRunner sql = runner.withUserConfiguration(H2DataSource.class)
                .withPropertyValues("fencegate.jdbc.enabled=false", "fencegate.issuer.backend=sql");
        sql.withPropertyValues("fencegate.issuer.sql.pool-size=1").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.sql.pool-size").hasMessageContaining("'1'"));
        sql.withPropertyValues("fencegate.issuer.sql.jdbc-url=postgresql://127.0.0.1/test").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.sql.jdbc-url").hasMessageContaining("postgresql://127.0.0.1/test"));
        sql.withPropertyValues("fencegate.issuer.sql.statement-timeout=1500ms").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.sql.statement-timeout").hasMessageContaining("whole seconds"));
        sql.withPropertyValues("fencegate.issuer.sql.grant-retention=0s").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencegate.issuer.sql.grant-retention"));
    }

    @Test
    void redisWithoutAHighWaterMarkFailsNamingBothChoices() {
        runner.withPropertyValues("fencegate.issuer.backend=redis", "fencegate.issuer.redis.uri=redis://127.0.0.1:6379")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("fencegate.issuer.redis.high-water-mark-file")
                        .hasMessageContaining("fencegate.issuer.redis.high-water-mark-table"));
    }

    @Test
    void aBadTokenColumnNameFailsNamingTheProperty() {
        runner.withUserConfiguration(H2DataSource.class)
                .withPropertyValues("fencegate.jdbc.migrate=false", "fencegate.jdbc.token-column=token; drop table x")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("fencegate.jdbc.token-column"));
    }

    @Test
    void anotherModulesBackendIsSelectedByName() {
        runner.withUserConfiguration(OtherBackend.class).withPropertyValues("fencegate.issuer.backend=in-test")
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseIssuer.class);
                    assertThat(context.getBean(LeaseIssuer.class)).isSameAs(OtherBackend.ISSUER);
                });
    }

    @Test
    void theApplicationsOwnIssuerWins() {
        runner.withUserConfiguration(OwnIssuer.class).withPropertyValues("fencegate.issuer.backend=zookeeper")
                .run(context -> assertThat(context.getBean(LeaseIssuer.class)).isSameAs(OtherBackend.ISSUER));
    }

    @Test
    void anIssuerGivesShedLockAFencedLockProviderUnlessTheApplicationHasOne() {
        runner.withUserConfiguration(OwnIssuer.class).run(context ->
                assertThat(context).hasSingleBean(io.fencegate.shedlock.FencedLockProvider.class));
        runner.withUserConfiguration(OwnIssuer.class).withPropertyValues("fencegate.shedlock.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(net.javacrumbs.shedlock.core.LockProvider.class));
        runner.withClassLoader(new FilteredClassLoader(io.fencegate.shedlock.FencedLockProvider.class))
                .withUserConfiguration(OwnIssuer.class).run(context ->
                        assertThat(context).hasNotFailed().doesNotHaveBean(net.javacrumbs.shedlock.core.LockProvider.class));
        runner.run(context -> assertThat(context).doesNotHaveBean(net.javacrumbs.shedlock.core.LockProvider.class));
    }

    @Test
    void anIssuerGivesSpringIntegrationAFencedLockRegistryAndABadTtlIsNamed() {
        runner.withUserConfiguration(OwnIssuer.class).run(context ->
                assertThat(context).hasSingleBean(io.fencegate.spring.integration.FencedLockRegistry.class));
        runner.withUserConfiguration(OwnIssuer.class).withPropertyValues("fencegate.integration.ttl=0s").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("fencegate.integration.ttl"));
        runner.withClassLoader(new FilteredClassLoader(io.fencegate.spring.integration.FencedLockRegistry.class))
                .withUserConfiguration(OwnIssuer.class).run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(org.springframework.integration.support.locks.LockRegistry.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OtherBackend {
        static final LeaseIssuer ISSUER = TestIssuers.unusable();

        @Bean
        LeaseIssuerBackend inTestBackend() {
            return new LeaseIssuerBackend() {
                @Override
                public String name() {
                    return "in-test";
                }

                @Override
                public LeaseIssuer open() {
                    return ISSUER;
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnIssuer {
        @Bean
        LeaseIssuer ownIssuer() {
            return OtherBackend.ISSUER;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class H2DataSource {
        @Bean
        javax.sql.DataSource dataSource() {
            org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
            ds.setURL("jdbc:h2:mem:fg_autoconfig;DB_CLOSE_DELAY=-1;DATABASE_TO_LOWER=TRUE");
            return ds;
        }
    }
}
