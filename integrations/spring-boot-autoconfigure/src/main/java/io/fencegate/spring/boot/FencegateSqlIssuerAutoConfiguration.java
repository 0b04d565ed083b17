package io.fencegate.spring.boot;

import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** The {@code sql} issuer backend, when fencegate-issuer-sql is on the classpath. */
@AutoConfiguration(before = FencegateIssuerAutoConfiguration.class)
@ConditionalOnClass(name = "io.fencegate.issuer.sql.SqlLeaseIssuer")
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateSqlIssuerAutoConfiguration {

    @Bean
    LeaseIssuerBackend fencegateSqlBackend(FencegateProperties properties, ObjectProvider<DataSource> dataSource) {
        return new SqlIssuerBackend(properties.getIssuer().getSql(), properties.getJdbc().getSchema(), dataSource::getIfUnique);
    }
}
