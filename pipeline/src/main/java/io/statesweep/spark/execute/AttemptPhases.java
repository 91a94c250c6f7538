package io.statesweep.spark.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.LineText;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;

/**
 * The phases of an execute attempt: each one begun as a job group of its own with its log line, and how long each
 * took, in seconds, in the order they ran (a phase's time ends as the next one's begins).
 */
public final class AttemptPhases {
  private static final String JOB_GROUP = "statesweep-execute";

  private final SparkSession spark;
  private final Logger log;
  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private long start = System.nanoTime();

  /** @param log the logger of the execute, whose lines these are */
  public AttemptPhases(SparkSession spark, Logger log) {
    this.spark = requireNonNull(spark, "spark is null");
    this.log = requireNonNull(log, "log is null");
  }

  /** The jobs from now on are of phase {@code name}, which the log names with {@code description}. */
  public void begin(String name, String description) {
    spark.sparkContext().setJobGroup(JOB_GROUP + "-" + name, "statesweep execute: " + description, false);
    log.info("Phase {}: {}", name, LineText.escape(description));
  }

  /** Ends the time of {@code phase} now; the next one's begins. */
  public void end(String phase) {
    seconds.put(phase, (System.nanoTime() - start) / 1e9);
    start = System.nanoTime();
  }

  /** The phases ended so far, in order. */
  public Map<String, Double> seconds() {
    return Collections.unmodifiableMap(seconds);
  }
}
