package io.fencegate.gateway;
/** Placeholder until this module lands. */
final class Placeholder { private Placeholder() {} }
