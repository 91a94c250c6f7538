/**
 * The failures a caller of statesweep sees, each its own type, in plain Java (no Spark, no AWS SDK, and no other
 * package of statesweep: every package may throw them), so that the command line (and a notebook) can tell them
 * apart (conf/deploy/README.md, "Failures page someone"):
 *
 * <ul>
 *   <li>{@link io.statesweep.api.failures.BadSettingsException}: a setting, or a file a setting names (config file, layout
 *       file, prices file, inventory manifest), cannot be used; the message names the setting, key or field and
 *       where its value came from.
 *   <li>{@link io.statesweep.api.failures.PlanRefusedException}: execute refuses a plan (none with that run id, not approved,
 *       changed since its approval, too old, incomplete, another bucket or layout, ...); the message says what to do.
 *   <li>{@link io.statesweep.api.failures.RunLockException} and its four kinds: another run holds the run lock
 *       ({@link io.statesweep.api.failures.RunLockException.Held}), the store refuses the lock's permissions
 *       ({@link io.statesweep.api.failures.RunLockException.Denied}), the store cannot hold a lock
 *       ({@link io.statesweep.api.failures.RunLockException.Untrusted}), any other failure to take it
 *       ({@link io.statesweep.api.failures.RunLockException.Unavailable}).
 * </ul>
 *
 * <p>A request to the object store that failed is {@code StoreException}, of the store's own package. Anything
 * else (an {@link java.lang.IllegalArgumentException} of a record that checks its own fields, a
 * {@link java.lang.NullPointerException}, ...) is a bug: the command line exits 1 and prints its stack trace.
 *
 * <p>{@link io.statesweep.api.failures.BadSettingsException} and {@link io.statesweep.api.failures.PlanRefusedException} are
 * {@link java.lang.IllegalArgumentException}s, as bad settings and refused plans were before they had types of
 * their own: a caller that catches {@code IllegalArgumentException} still catches them.
 */
package io.statesweep.api.failures;
