package io.statesweep.execute;

/**
 * Whether deletes carry the ETag they expect ({@code --conditional-deletes}): {@code AUTO} probes the store once per
 * run ({@link ConditionalDeleteProbe}), {@code ON} and {@code OFF} are set by hand.
 */
public enum ConditionalMode { AUTO, ON, OFF }
