/**
 * fencegate's Spring Boot auto-configuration: {@code fencegate.*} properties to a
 * {@link io.fencegate.client.FencegateClient}, a {@link io.fencegate.issuer.LeaseIssuer} (through a
 * {@link io.fencegate.spring.boot.LeaseIssuerBackend}), guarded SQL beans on the application's
 * DataSource, Actuator health and Micrometer lease meters ({@link io.fencegate.spring.boot.LeaseMeters}).
 */
package io.fencegate.spring.boot;
