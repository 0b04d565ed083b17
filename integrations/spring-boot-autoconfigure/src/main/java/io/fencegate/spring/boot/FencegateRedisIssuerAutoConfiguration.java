package io.fencegate.spring.boot;

import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** The {@code redis} issuer backend, when fencegate-issuer-redis (and so Lettuce) is on the classpath. */
@AutoConfiguration(before = FencegateIssuerAutoConfiguration.class)
@ConditionalOnClass(name = {"io.fencegate.issuer.redis.RedisLeaseIssuer", "io.lettuce.core.RedisClient"})
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateRedisIssuerAutoConfiguration {

    @Bean
    LeaseIssuerBackend fencegateRedisBackend(FencegateProperties properties, ObjectProvider<DataSource> dataSource) {
        return new RedisIssuerBackend(properties.getIssuer().getRedis(), () -> {
            DataSource db = dataSource.getIfUnique();
            if (db != null && properties.getJdbc().isMigrate()) {
                SchemaMigration.migrate(db, properties.getJdbc().getSchema()); // fencegate_token_mark
            }
            return db;
        });
    }
}
