package io.fencegate.spring.boot;

import io.fencegate.client.FencegateClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

/** A {@link FencegateClient} for the gateway at {@code fencegate.client.url}. */
@AutoConfiguration
@ConditionalOnClass(FencegateClient.class)
@ConditionalOnProperty(prefix = "fencegate.client", name = "url")
@EnableConfigurationProperties(FencegateProperties.class)
public class FencegateClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public FencegateClient fencegateClient(FencegateProperties properties) {
        FencegateProperties.Client settings = properties.getClient();
        String scheme = settings.getUrl().getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme) || settings.getUrl().getHost() == null) {
            throw new InvalidConfigurationPropertyValueException("fencegate.client.url", settings.getUrl(),
                    "must be an absolute http or https URL, e.g. http://127.0.0.1:8080");
        }
        FencegateClient.Builder builder = FencegateClient.builder(settings.getUrl())
                .timeout(PropertyChecks.positive("fencegate.client.timeout", settings.getTimeout()));
        if (settings.getApiKey() != null && !settings.getApiKey().isBlank()) {
            builder.apiKey(settings.getApiKey());
        }
        return builder.build();
    }
}
