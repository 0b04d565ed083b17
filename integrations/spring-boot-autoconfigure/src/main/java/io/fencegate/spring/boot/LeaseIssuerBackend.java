package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseIssuer;

/**
 * The extension point for issuer backends. A module that grants leases (ZooKeeper, Redis, a SQL
 * database) contributes one bean of this type from its own auto-configuration; the starter opens
 * the one whose {@link #name()} equals {@code fencegate.issuer.backend}, wraps it with metrics and
 * health, and closes it with the context. Backends read their own {@code fencegate.issuer.<name>.*}
 * properties; a wrong or missing one fails start-up with an
 * {@link org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException}
 * naming the property.
 */
public interface LeaseIssuerBackend {

    /** The value of {@code fencegate.issuer.backend} that selects this backend. */
    String name();

    /** Opens the issuer; called once, and only for the selected backend. */
    LeaseIssuer open();
}
