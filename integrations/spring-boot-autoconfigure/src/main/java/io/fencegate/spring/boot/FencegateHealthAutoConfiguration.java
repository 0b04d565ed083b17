package io.fencegate.spring.boot;

import io.fencegate.client.FencegateClient;
import io.fencegate.issuer.LeaseIssuer;
import java.net.URI;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Actuator health: {@code fencegateIssuer} and {@code fencegateClient}, under {@code management.health.fencegate.enabled}. */
@AutoConfiguration(after = {FencegateIssuerAutoConfiguration.class, FencegateClientAutoConfiguration.class})
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("fencegate")
public class FencegateHealthAutoConfiguration {

    @Bean
    @ConditionalOnBean(LeaseIssuer.class)
    @ConditionalOnMissingBean(name = "fencegateIssuerHealthIndicator")
    public HealthIndicator fencegateIssuerHealthIndicator(LeaseIssuer issuer) {
        return new IssuerHealthIndicator(issuer);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(FencegateClient.class)
    static class Client {
        @Bean
        @ConditionalOnBean(FencegateClient.class)
        @ConditionalOnMissingBean(name = "fencegateClientHealthIndicator")
        HealthIndicator fencegateClientHealthIndicator(FencegateProperties properties) {
            URI url = properties.getClient().getUrl();
            return new GatewayHealthIndicator(url == null ? null : url.resolve("/health"), properties.getClient().getTimeout());
        }
    }
}
