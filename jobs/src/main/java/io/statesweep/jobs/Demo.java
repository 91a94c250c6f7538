package io.statesweep.jobs;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The embedded default (README command one): starts a local S3Proxy server, writes a generated
 * archive into it, and runs {@code plan} on local Spark into a local Delta warehouse. The user's
 * {@code COGRAM_CLEANUP_*} variables are ignored here, so a demo can never point at a real bucket.
 */
final class Demo {
  static final String BUCKET = "statesweep-demo";
  static final String PREFIX = "cogram/";
  static final String DEFAULT_WAREHOUSE = "target/statesweep-demo/warehouse";
  private static final String RECORDS = "--records";

  private Demo() {}

  static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
    CommandLine commandLine = CommandLine.parse(args, Set.of(RECORDS));
    if (commandLine.help()) {
      out.print("usage: statesweep demo [--records N] [--warehouse DIR] [plan options]\n\n"
          + "Starts a local S3 server (S3Proxy, in memory), writes a generated archive of N records (default "
          + SampleArchive.DEFAULT_RECORD_COUNT + ") under s3://" + BUCKET + "/" + PREFIX + ", and runs plan on it"
          + " into DIR (default " + DEFAULT_WAREHOUSE + ").\n");
      return StatesweepCli.OK;
    }
    Map<String, String> flags = new LinkedHashMap<>(commandLine.flags());
    int records = parseRecords(flags.remove(RECORDS));
    for (String forbidden : new String[] {"--bucket", "--prefix", "--endpoint", "--dry-run"}) {
      if (flags.containsKey(forbidden)) {
        throw new IllegalArgumentException("The demo sets " + forbidden + " itself; use the plan command for a real"
            + " bucket");
      }
    }
    long started = System.nanoTime();
    try (LocalS3Server server = LocalS3Server.builder().maxHeap("1g").start()) {
      server.setCredentialSystemProperties();
      server.createBucket(BUCKET);
      out.printf("local S3 server: %s (S3Proxy, in memory) started in %.1f s%n", server.endpoint(), seconds(started));

      long generating = System.nanoTime();
      ObjectStore store = new ObjectStore(S3Clients.shared(server.s3Settings()), BUCKET);
      SampleArchive.Manifest manifest = SampleArchive.generate(store, PREFIX, records, SampleArchive.DEFAULT_SEED,
          Instant.now());
      out.printf("sample archive: %d records, %d objects under s3://%s/%s, written in %.1f s%n",
          manifest.recordCount(), manifest.objectCount(), BUCKET, PREFIX, seconds(generating));
      out.println("expected plan: " + manifest.countsByAction(Duration.ZERO));

      flags.put("--bucket", BUCKET);
      flags.put("--prefix", PREFIX);
      flags.put("--endpoint", server.endpoint());
      flags.putIfAbsent("--warehouse", DEFAULT_WAREHOUSE);
      flags.putIfAbsent("--log-lines", "10");
      Settings settings = Settings.resolve(flags, Map.of(), null);
      int code = StatesweepCli.plan(RunOptions.from(settings), settings, out, err);
      out.printf("demo finished in %.1f s; read the plan with Spark: spark.read.format(\"delta\").load(\"%s\")%n",
          seconds(started), settings.string(Settings.WAREHOUSE) + "/deletion_plan");
      return code;
    }
  }

  private static int parseRecords(String value) {
    if (value == null) {
      return SampleArchive.DEFAULT_RECORD_COUNT;
    }
    int minimum = SampleArchive.minimumRecordCount();
    try {
      int records = Integer.parseInt(value.trim());
      if (records >= minimum && records <= 1_000_000) {
        return records;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("Invalid --records '" + value + "': a whole number from " + minimum
        + " to 1000000");
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
