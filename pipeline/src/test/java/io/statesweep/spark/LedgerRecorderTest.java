package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.Tables;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.execute.LedgerRecorder;
import io.statesweep.spark.run.RunMetrics;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger's recording (README, "Every delete on the record"): an object of it that cannot be read stays in the bucket, named by
 * its key, whatever the export prefix holds (a prefix with ": " in it, which a reason's text also holds), read on the
 * driver or in Spark tasks.
 */
@ExtendWith(S3ServerExtension.class)
class LedgerRecorderTest {
  private static final String RUN = "20261201T060000Z-aaaaaa";

  @Test
  void anObjectThatCannotBeReadStaysUnderAPrefixWithAColonOnTheDriverAndInTasks(LocalS3Server server,
      @TempDir Path warehouse) {
    String bucket = server.createBucket("ledger-colon");
    RunOptions options = TestOptions.of(server.endpoint(), bucket, "exports: eu", warehouse)
        .with("--dry-run", "false").options();
    SparkSession spark = SharedSpark.session();
    LedgerRecorder ledger = new LedgerRecorder(spark, options.execute(), RunMetrics.register(spark.sparkContext()));
    Tables tables = new Tables(warehouse.toString());
    S3ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);

    for (long recordsHint : new long[] {0, -1}) {
      String attempt = recordsHint == 0 ? "20261201T060500Z-bbbbbb" : "20261201T060600Z-cccccc";
      String unreadable = ledger.folder(RUN, attempt) + "p00000/t1-w000001-intent-g0001-p00001.json";
      store.write(unreadable, "{\"version\":2, \"kind\":".getBytes(StandardCharsets.UTF_8));

      LedgerRecorder.Recorded recorded = ledger.record(RUN, attempt, "2026-12-01", tables,
          LedgerRecorder.Write.APPEND, true, recordsHint);

      assertThat(unreadable).startsWith("exports: eu");
      assertThat(recorded.unreadable()).as("read %s", recordsHint == 0 ? "on the driver" : "in tasks").isEqualTo(1);
      assertThat(store.read(unreadable, 100)).as("it stays, as the log says, read %s", recordsHint == 0
          ? "on the driver" : "in tasks").isNotNull();
    }
  }
}
