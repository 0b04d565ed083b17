package io.fencegate.issuer.spi;

/**
 * One kind of lease issuer, as a server (the gateway) finds it: through {@link java.util.ServiceLoader},
 * from a line naming the provider class in {@code META-INF/services/io.fencegate.issuer.spi.IssuerProvider}.
 * A new backend is a new module with a provider and that one line; no server code changes.
 *
 * <p>The server reads the {@code issuer} section, finds the provider whose {@link #issuerType()}
 * its {@code type} names, binds the remaining keys to {@link IssuerType#settings()} (a record: its
 * components are the keys this issuer type accepts, anything else is refused), calls
 * {@link IssuerSettings#validate()} and checks {@link IssuerSettings#exclusivePaths()} before
 * opening anything, then {@link #open}, which claims that state ({@link io.fencegate.spi.LocalClaim}).
 *
 * @param <S> this issuer type's settings
 */
public interface IssuerProvider<S extends IssuerSettings> {

    /** Its {@code type} and settings record: {@code new IssuerType<>("zookeeper", ZooKeeperIssuerConfig.class)}. */
    IssuerType<S> issuerType();

    /**
     * Opens the issuer {@code settings} describe (already validated, exclusive paths claimed).
     * Whatever it opens besides the issuer that must be closed when the server stops is registered
     * with {@link IssuerContext#closeOnStop}, as soon as it is open.
     *
     * @throws io.fencegate.spi.InvalidSettingException a setting is wrong in a way only opening
     *         shows (an unreachable server), naming the key or, with none, the whole issuer
     * @throws Exception an embedded server that failed to start
     */
    OpenedIssuer open(S settings, IssuerContext context) throws Exception;
}
