/**
 * The Redis issuer as a backend the gateway discovers ({@link io.fencegate.issuer.spi.IssuerProvider},
 * registered in {@code META-INF/services}): its settings and how they open an issuer.
 */
package io.fencegate.issuer.redis.provider;
