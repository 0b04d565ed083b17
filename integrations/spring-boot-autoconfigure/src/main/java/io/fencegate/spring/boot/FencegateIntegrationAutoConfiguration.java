package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.spring.integration.FencedLockRegistry;
import java.time.Duration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/** Spring Integration's {@link LockRegistry} on the application's {@link LeaseIssuer}, unless it has its own. */
@AutoConfiguration(after = FencegateIssuerAutoConfiguration.class)
@ConditionalOnClass({FencedLockRegistry.class, LockRegistry.class})
@ConditionalOnBean(LeaseIssuer.class)
@ConditionalOnProperty(prefix = "fencegate.integration", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateIntegrationAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockRegistry.class)
    public FencedLockRegistry fencedLockRegistry(LeaseIssuer issuer, FencegateProperties properties) {
        FencegateProperties.Integration settings = properties.getIntegration();
        Duration ttl = PropertyChecks.positive("fencegate.integration.ttl", settings.getTtl());
        return new FencedLockRegistry(issuer, ttl, settings.getLockPrefix() == null ? "" : settings.getLockPrefix(),
                settings.isKeepAlive(), Duration.ofSeconds(10));
    }
}
