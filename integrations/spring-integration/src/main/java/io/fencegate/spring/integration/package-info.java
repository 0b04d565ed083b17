/**
 * Fenced Spring Integration locks: {@link io.fencegate.spring.integration.FencedLockRegistry} hands
 * out {@link io.fencegate.spring.integration.FencedLock}s, each a fencegate lease with a token.
 */
package io.fencegate.spring.integration;
