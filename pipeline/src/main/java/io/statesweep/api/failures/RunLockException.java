package io.statesweep.api.failures;

import static java.util.Objects.requireNonNull;

/**
 * The run lock of the export could not be taken (pipeline/README.md, "One run at a time"), for one of four reasons,
 * each its own type: {@link Held}, {@link Denied}, {@link Untrusted}, {@link Unavailable}. The message names the lock
 * ({@code s3://<bucket>/<prefix>.statesweep/lock}) and says why. Each is thrown before the run reads or deletes
 * anything.
 */
public abstract sealed class RunLockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RunLockException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Another run holds the lock: the message names it (command, host, since when, until when) and says what to do. */
  public static final class Held extends RunLockException {
    private static final long serialVersionUID = 1L;

    public Held(String message) {
      super(message, null);
    }
  }

  /**
   * The store refused a request on the lock for want of a permission (the exporter's guide grants no
   * s3:PutObject): the message names the permission and where to grant it. A dry run goes on without the lock; a run
   * that deletes does not.
   */
  public static final class Denied extends RunLockException {
    private static final long serialVersionUID = 1L;

    private final String permission;

    public Denied(String message, String permission, Throwable cause) {
      super(message, cause);
      this.permission = requireNonNull(permission, "permission is null");
    }

    /** The permission that the store refused, such as {@code s3:PutObject}. */
    public String permission() {
      return permission;
    }
  }

  /**
   * The store cannot hold the lock: it ignores PutObject {@code If-None-Match: *} (the lock's probe found it), so two
   * runs could both take it. A run that deletes refuses before it reads or deletes anything, unless it was told to
   * accept the risk; a dry run goes on without the lock.
   */
  public static final class Untrusted extends RunLockException {
    private static final long serialVersionUID = 1L;

    private final String finding;

    /** @param finding what the probe found, such as {@code ignored (the store wrote <key> a second time ...)} */
    public Untrusted(String message, String finding) {
      super(message, null);
      this.finding = requireNonNull(finding, "finding is null");
    }

    /** What the lock's probe found. */
    public String finding() {
      return finding;
    }
  }

  /**
   * The lock could not be taken for another reason than a held lock or a refused permission (the store answered with
   * an error, or could not be reached): the message names the lock and the store's answer.
   */
  public static final class Unavailable extends RunLockException {
    private static final long serialVersionUID = 1L;

    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
