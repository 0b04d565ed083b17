package io.fencegate.issuer.spi;

import io.fencegate.spi.ExclusivePath;
import java.util.List;

/** An issuer type's configuration: a record whose components are the keys it accepts. */
public interface IssuerSettings {

    /**
     * Checks every key without opening anything.
     *
     * @throws io.fencegate.spi.InvalidSettingException naming the first bad key
     */
    void validate();

    /**
     * Local state this issuer needs to itself (an embedded server's data), which the server checks
     * before it opens anything; none by default. The backend that owns the state claims it itself
     * when it opens ({@link io.fencegate.spi.LocalClaim}), whoever opens it. State several processes may share (a database
     * server, a high-water mark file whose raises lock it) is not listed.
     */
    default List<ExclusivePath> exclusivePaths() {
        return List.of();
    }
}
