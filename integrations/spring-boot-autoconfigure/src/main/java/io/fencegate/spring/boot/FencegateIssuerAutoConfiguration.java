package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link LeaseIssuer} bean from {@code fencegate.issuer.backend}: the {@link LeaseIssuerBackend}
 * of that name is opened, measured when Micrometer is present, and closed with the context. Each
 * backend comes from an auto-configuration of its own, present when its module is
 * ({@code Fencegate{ZooKeeper,Redis,Sql}IssuerAutoConfiguration}), so adding one edits no other.
 * An application that defines its own {@code LeaseIssuer} bean keeps it. A {@link MultiLock} bean
 * takes several locks of that issuer as one group.
 */
// By name, Boot 3's and Boot 4's (whose auto-configurations moved to modules of their own): a
// missing name is ignored, so one jar orders itself right on both.
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateIssuerAutoConfiguration {

    static final String BACKEND = "fencegate.issuer.backend";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LeaseIssuer.class)
    @ConditionalOnProperty(prefix = "fencegate.issuer", name = "backend")
    public LeaseIssuer fencegateLeaseIssuer(FencegateProperties properties, ObjectProvider<LeaseIssuerBackend> found,
            ObjectProvider<LeaseMeters> meters) {
        List<LeaseIssuerBackend> backends = found.orderedStream().toList(); // none at all: the message below, not Spring's
        String name = properties.getIssuer().getBackend().trim();
        LeaseIssuerBackend backend = backends.stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new InvalidConfigurationPropertyValueException(BACKEND, name,
                        "no issuer backend of that name on the classpath (found: "
                                + backends.stream().map(LeaseIssuerBackend::name).sorted().toList()
                                + "); zookeeper needs io.fencegate:fencegate-issuer-zookeeper, redis needs io.fencegate:fencegate-issuer-redis,"
                                + " sql needs io.fencegate:fencegate-issuer-sql"));
        LeaseIssuer issuer = backend.open();
        LeaseMeters measured = meters.getIfAvailable();
        return measured == null ? issuer : new MeteredLeaseIssuer(issuer, measured);
    }

    /**
     * Several locks as one lease group, all or none ({@link MultiLock}), on whichever {@code LeaseIssuer}
     * the context has: fencegate's or the application's own.
     */
    @Bean
    @ConditionalOnMissingBean(MultiLock.class)
    @ConditionalOnBean(LeaseIssuer.class)
    public MultiLock fencegateMultiLock(LeaseIssuer issuer) {
        return new MultiLock(issuer);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(MeterRegistry.class)
        LeaseMeters fencegateLeaseMeters(MeterRegistry registry) {
            return new LeaseMeters(registry);
        }
    }
}
