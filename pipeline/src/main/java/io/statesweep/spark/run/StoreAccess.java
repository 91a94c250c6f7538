package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import io.statesweep.config.ExportOptions;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import java.io.Serializable;
import java.util.Iterator;
import java.util.function.Function;

/**
 * How a run reaches the export's bucket, on the driver or in a function that Spark ships to executors: the S3 settings
 * and the bucket a store opens with (its client shared per JVM, {@link io.statesweep.s3.S3Clients#shared}), and the
 * run's metrics that count the store's requests (pipeline/README.md, "Progress and metrics").
 */
public record StoreAccess(S3Settings s3, String bucket, RunMetrics metrics) implements Serializable {
  public StoreAccess {
    requireNonNull(s3, "s3 is null");
    requireNonNull(bucket, "bucket is null");
    requireNonNull(metrics, "metrics is null");
  }

  /** The run's bucket ({@link ExportOptions#bucket()}), its requests counted in {@code metrics}. */
  public static StoreAccess of(ExportOptions options, RunMetrics metrics) {
    return new StoreAccess(options.s3(), options.bucket(), metrics);
  }

  /** A store of the bucket; {@link #countRequests} adds what it sent to the metrics. */
  public S3ObjectStore open() {
    return S3ObjectStore.open(s3, bucket);
  }

  /** Adds the requests {@code store} made so far to the run's metrics. */
  public void countRequests(S3ObjectStore store) {
    metrics.addRequests(store.requestCounts());
  }

  /**
   * {@code items} as a task's rows, each turned into its row by {@code eachRow} as it is taken; when they end,
   * {@code atEnd} runs and the requests {@code store} made go into the metrics, once.
   */
  public <T, R> Iterator<R> countedAtEnd(Iterator<T> items, S3ObjectStore store, Function<T, R> eachRow,
      Runnable atEnd) {
    return new Iterator<>() {
      private boolean counted;

      @Override
      public boolean hasNext() {
        boolean more = items.hasNext();
        if (!more && !counted) {
          counted = true;
          atEnd.run();
          countRequests(store);
        }
        return more;
      }

      @Override
      public R next() {
        return eachRow.apply(items.next());
      }
    };
  }
}
