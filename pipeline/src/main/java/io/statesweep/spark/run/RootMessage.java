package io.statesweep.spark.run;

/** What a failure says to a person: its innermost cause's message, without Spark's wrapping. */
public final class RootMessage {
  private RootMessage() {}

  /** The innermost cause's message: what a person can act on, without Spark's wrapping. */
  public static String of(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
  }

}
