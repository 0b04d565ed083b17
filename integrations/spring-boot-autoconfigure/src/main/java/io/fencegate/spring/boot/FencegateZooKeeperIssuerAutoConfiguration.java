package io.fencegate.spring.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** The {@code zookeeper} issuer backend, when fencegate-issuer-zookeeper (and so Curator) is on the classpath. */
@AutoConfiguration(before = FencegateIssuerAutoConfiguration.class)
@ConditionalOnClass(name = {"io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer", "org.apache.curator.framework.CuratorFramework"})
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateZooKeeperIssuerAutoConfiguration {

    @Bean
    LeaseIssuerBackend fencegateZooKeeperBackend(FencegateProperties properties) {
        return new ZooKeeperIssuerBackend(properties.getIssuer().getZookeeper());
    }
}
