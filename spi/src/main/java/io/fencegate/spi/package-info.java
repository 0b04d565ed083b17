/**
 * What the issuer SPI ({@code io.fencegate.issuer.spi}) and the store SPI
 * ({@code io.fencegate.store.spi}) share: a bad setting named by its key
 * ({@link io.fencegate.spi.InvalidSettingException}), the value rules ({@link io.fencegate.spi.Settings}),
 * local state a backend needs to itself ({@link io.fencegate.spi.ExclusivePath}), and how a backend
 * tells that nothing answered at its address ({@link io.fencegate.spi.ConnectFailure}). JDK only.
 */
package io.fencegate.spi;
