package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.shedlock.FencedLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock's {@link LockProvider} on the application's {@link LeaseIssuer}: with
 * {@code fencegate-shedlock} on the classpath, existing {@code @SchedulerLock} jobs run under
 * fencegate leases and read their token from {@code FencedJob}. An application's own
 * {@code LockProvider} bean wins.
 */
@AutoConfiguration(after = FencegateIssuerAutoConfiguration.class)
@ConditionalOnClass({FencedLockProvider.class, LockProvider.class})
@ConditionalOnBean(LeaseIssuer.class)
@ConditionalOnProperty(prefix = "fencegate.shedlock", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateShedLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockProvider.class)
    public FencedLockProvider fencedLockProvider(LeaseIssuer issuer, FencegateProperties properties) {
        FencegateProperties.Shedlock settings = properties.getShedlock();
        return new FencedLockProvider(issuer, settings.getLockPrefix() == null ? "" : settings.getLockPrefix(),
                PropertyChecks.positive("fencegate.shedlock.call-timeout", settings.getCallTimeout()));
    }
}
