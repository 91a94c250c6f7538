package io.statesweep.jobs;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The embedded default (README command one, {@code mvn -B -q -Pdemo -DskipTests verify}): starts a local
 * S3Proxy server, writes a generated archive into it, and runs the product's {@code plan} command on local
 * Spark into a local Delta warehouse, as a user would against an S3-compatible endpoint. It lives in test
 * scope: the server and the sample archive are not part of the job jar.
 *
 * <p>The user's {@code COGRAM_CLEANUP_*} and {@code STATESWEEP_*} variables are not passed to the plan, so a
 * demo can never point at a real bucket.
 */
public final class Demo {
  static final String BUCKET = "statesweep-demo";
  static final String PREFIX = "cogram/";
  static final String DEFAULT_WAREHOUSE = "target/statesweep-demo/warehouse";
  private static final String RECORDS = "--records";
  /** The command line's exit codes (pipeline/README.md, "The summary line"). */
  private static final int OK = 0;
  private static final int BAD_SETTINGS = 2;
  private static final Set<String> SET_BY_THE_DEMO = Set.of("--bucket", "--prefix", "--endpoint", "--dry-run",
      "--execute");

  private Demo() {}

  /** Runs the demo and exits with the plan's exit code (0 when it completed without errors). */
  public static void main(String[] args) {
    int code;
    try {
      code = run(args, System.out, System.err);
    } catch (IllegalArgumentException e) {
      System.err.println("statesweep demo: " + e.getMessage());
      code = BAD_SETTINGS;
    }
    System.out.flush();
    if (code != OK) {
      System.exit(code);
    }
  }

  /**
   * {@code [--records N] [plan options]}: every option but {@code --records} goes to {@code plan}, except
   * the bucket, prefix, endpoint and dry run, which the demo sets.
   */
  static int run(String[] args, PrintStream out, PrintStream err) {
    List<String> planArgs = new ArrayList<>(List.of(args));
    if (planArgs.contains("--help") || planArgs.contains("-h")) {
      out.print("usage: Demo [--records N] [--warehouse DIR] [plan options]\n\n"
          + "Starts a local S3 server (S3Proxy, in memory), writes a generated archive of N records (default "
          + SampleArchive.DEFAULT_RECORD_COUNT + ") under s3://" + BUCKET + "/" + PREFIX + ", and runs plan on it"
          + " into DIR (default " + DEFAULT_WAREHOUSE + ").\n");
      return OK;
    }
    int records = parseRecords(removeOption(planArgs, RECORDS));
    for (String arg : planArgs) {
      String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (SET_BY_THE_DEMO.contains(flag)) {
        throw new IllegalArgumentException("The demo sets " + flag + " itself; use the plan command for a real"
            + " bucket");
      }
    }
    long started = System.nanoTime();
    try (LocalS3Server server = LocalS3Server.builder().maxHeap("1g").start()) {
      server.setCredentialSystemProperties();
      server.createBucket(BUCKET);
      out.printf("local S3 server: %s (S3Proxy, in memory) started in %.1f s%n", server.endpoint(), seconds(started));

      long generating = System.nanoTime();
      ObjectStore store = S3ObjectStore.open(server.s3Settings(), BUCKET);
      SampleArchive.Manifest manifest = SampleArchive.generate(store, PREFIX, records, SampleArchive.DEFAULT_SEED,
          Instant.now());
      out.printf("sample archive: %d records, %d objects under s3://%s/%s, written in %.1f s%n",
          manifest.recordCount(), manifest.objectCount(), BUCKET, PREFIX, seconds(generating));
      out.println("expected plan: " + manifest.countsByAction(Duration.ZERO));

      String warehouse = optionValue(planArgs, "--warehouse");
      if (warehouse == null) {
        warehouse = DEFAULT_WAREHOUSE;
        planArgs.addAll(List.of("--warehouse", warehouse));
      }
      if (optionValue(planArgs, "--log-lines") == null) {
        planArgs.addAll(List.of("--log-lines", "10"));
      }
      List<String> command = new ArrayList<>(List.of("plan", "--bucket", BUCKET, "--prefix", PREFIX, "--endpoint",
          server.endpoint(), "--region", LocalS3Server.REGION));
      command.addAll(planArgs);
      int code = StatesweepCli.run(command.toArray(String[]::new), Map.of(), out, err);
      out.printf("demo finished in %.1f s; read the plan with Spark: spark.read.format(\"delta\").load(\"%s\")%n",
          seconds(started), warehouse + "/deletion_plan");
      return code;
    }
  }

  /** Removes {@code --name V} or {@code --name=V} from {@code args} and returns V (null if absent). */
  private static String removeOption(List<String> args, String name) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).startsWith(name + "=")) {
        return args.remove(i).substring(name.length() + 1);
      }
      if (args.get(i).equals(name)) {
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException("Missing value for " + name);
        }
        args.remove(i);
        return args.remove(i);
      }
    }
    return null;
  }

  private static String optionValue(List<String> args, String name) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).startsWith(name + "=")) {
        return args.get(i).substring(name.length() + 1);
      }
      if (args.get(i).equals(name) && i + 1 < args.size()) {
        return args.get(i + 1);
      }
    }
    return null;
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
