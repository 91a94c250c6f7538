package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.RunLockException;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Credentials stay out of everything a run leaves behind: its log output and its Delta tables.
 *
 * <p>The run signs with the test server's secret key, found the way the product finds it (the SDK's
 * default chain: {@code aws.*} system properties here). A fake session token cannot sign requests here
 * (S3Proxy answers 501 NotImplemented to {@code x-amz-security-token}), so it sits, with the secret,
 * where a cluster keeps them: the environment the run resolves its settings from (the command line
 * hands it {@code System.getenv()}) and Spark's Hadoop configuration ({@code fs.s3a.*}). A plan, its
 * execution and a plan that fails (a bucket that does not exist) run while every log event is captured,
 * with statesweep's loggers at TRACE and every other logger at INFO (Spark's, Delta's, the SDK's), and
 * while System.out and System.err are captured: neither the secret nor the token appears in any line or
 * stack trace, nor does a presigned URL or a signed header ({@code X-Amz-Signature=},
 * {@code X-Amz-Credential=}, {@code Credential=}, {@code X-Amz-Security-Token}); and neither appears in
 * any column of any table of the warehouse ({@code runs.settings} included), nor in any of its files.
 *
 * <p>The bucket root is refused without {@code --allow-bucket-root}: {@code RunOptionsTest
 * .refusesTheBucketRootUnlessAllowed} (settings) and {@code BucketRootCommandTest} in the jobs module
 * (every command line that lists or deletes).
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityTest {
  private static final String BUCKET = "security";
  private static final String P = "cogram/";
  private static final List<String> SIGNING_MARKERS =
      List.of("X-Amz-Signature=", "X-Amz-Credential=", "Credential=", "X-Amz-Security-Token");

  private final String sessionToken = "FakeSessionToken" + HexFormat.of().formatHex(randomBytes(24));
  private String secretKey;
  private String warehouse;
  private final Map<String, String> previousHadoop = new HashMap<>();
  private final List<String> logged = new ArrayList<>();
  private String printed;
  private PlanResult plan;
  private ExecuteResult execution;
  /** The failing run: a plan of a bucket that does not exist, refused as it takes the run lock; its stack trace. */
  private String failedRun;

  @BeforeAll
  void runWithCredentialsWhileCapturingEverything(LocalS3Server server, @TempDir Path warehouse) {
    this.secretKey = server.secretKey();
    this.warehouse = warehouse.toString();
    TestArchive archive = new TestArchive(server, BUCKET, P);
    archive.put("projects/p1/meetings/m1/minutes.pdf", "pdf");
    archive.put("projects/p1/meetings/m1/state.json", archive.state(true, null,
        List.of("projects/p1/meetings/m1/minutes.pdf"), List.of()));
    archive.put("projects/p1/emails/e1/mail.eml", "mail");
    archive.put("projects/p1/emails/e1/state.json", archive.state(true, null,
        List.of("projects/p1/emails/e1/mail.eml", "projects/p1/meetings/m1/minutes.pdf"), List.of()));
    archive.put("projects/p1/documents/d1/state.json", "{\"delete\": \"yes\"}");
    archive.put("projects/p1/documents/d2/doc.pdf", "pdf");
    archive.put("projects/p1/documents/d2/state.json", archive.state(false, null,
        List.of("projects/p1/documents/d2/doc.pdf"), List.of()));

    // Where a cluster keeps credentials for S3A: Spark's Hadoop configuration (restored afterwards).
    org.apache.hadoop.conf.Configuration hadoop = SharedSpark.session().sparkContext().hadoopConfiguration();
    for (Map.Entry<String, String> entry : Map.of("fs.s3a.access.key", server.accessKey(), "fs.s3a.secret.key",
        secretKey, "fs.s3a.session.token", sessionToken).entrySet()) {
      previousHadoop.put(entry.getKey(), hadoop.get(entry.getKey()));
      hadoop.set(entry.getKey(), entry.getValue());
    }
    Map<String, String> environment = Map.of("AWS_ACCESS_KEY_ID", server.accessKey(),
        "AWS_SECRET_ACCESS_KEY", secretKey, "AWS_SESSION_TOKEN", sessionToken);
    try (LogCapture capture = LogCapture.attach(); PrintCapture prints = PrintCapture.start()) {
      plan = new SparkPlanAction(SharedSpark.session(), options(server, BUCKET, Map.of(), environment).plan()).execute();
      assertThat(plan.failure()).isNull();
      execution = new SparkExecuteAction(SharedSpark.session(), options(server, BUCKET,
          Map.of("--dry-run", "false", "--skip-approval", "true"), environment).execute(), plan.runId()).execute();
      try {
        new SparkPlanAction(SharedSpark.session(), options(server, "security-no-such-bucket", Map.of(), environment).plan())
            .execute();
      } catch (RunLockException.Unavailable e) {
        java.io.StringWriter trace = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(trace));
        failedRun = trace.toString();
      }
      LoggerFactory.getLogger(SecurityTest.class).trace("capture probe");
      logged.addAll(capture.lines());
      printed = prints.text();
    }
  }

  @AfterAll
  void restoreHadoopConfiguration() {
    org.apache.hadoop.conf.Configuration hadoop = SharedSpark.session().sparkContext().hadoopConfiguration();
    previousHadoop.forEach((key, value) -> {
      if (value == null) {
        hadoop.unset(key);
      } else {
        hadoop.set(key, value);
      }
    });
  }

  @Test
  void theRunsCompletedAndTheCaptureSawEveryLevel() {
    assertThat(plan.failure()).isNull();
    assertThat(plan.summary().line()).startsWith("summary: dry_run=true complete=true state_files_scanned=4"
        + " records_deleted=1 child_keys_deleted=1 records_kept=3 kept_newer_files=0 kept_refused=1 skipped=0 errors=0");
    assertThat(execution.summary().line()).startsWith("summary: dry_run=false complete=true state_files_scanned=4"
        + " records_deleted=1 child_keys_deleted=1");
    assertThat(failedRun).as("a failing run is captured too").startsWith("io.statesweep.api.failures.RunLockException$Unavailable:"
        + " Cannot take the run lock s3://security-no-such-bucket/cogram.statesweep/lock: ");
    assertThat(logged).as("the capture saw the run").anyMatch(line -> line.contains("Run " + plan.runId()));
    assertThat(logged).as("TRACE of statesweep").anyMatch(line -> line.contains("capture probe"));
    assertThat(logged).as("INFO of Spark").anyMatch(line -> line.contains("INFO  org.apache.spark."));
    assertThat(failedRun).as("the failed run's stack trace").contains("\tat ").contains("Caused by: ");
  }

  @Test
  void noLogLineOrPrintedOutputHoldsTheSecretTheTokenOrASignature() {
    List<String> everything = new ArrayList<>(logged);
    everything.add(printed);
    everything.addAll(plan.logLines());
    everything.addAll(execution.logLines());
    everything.addAll(List.of(plan.summary().line(), plan.metricsJson(), execution.summary().line(),
        execution.metricsJson(), execution.conditionalDeletes(), failedRun));

    assertNoCredentials(everything);
  }

  @Test
  void noColumnOfAnyTableHoldsTheSecretOrTheToken() throws IOException {
    SparkSession spark = SharedSpark.session();
    List<String> tables = tablesOfTheWarehouse();
    assertThat(tables).contains(Tables.STATE_FILES, Tables.DELETION_PLAN, Tables.RUNS, Tables.EXECUTIONS,
        Tables.PLAN_SUMMARY);

    List<String> rows = new ArrayList<>();
    for (String table : tables) {
      Dataset<Row> tableDS = TableReader.of(spark, warehouse).table(table);
      // Every column, maps (runs.settings), arrays and structs included, as JSON text.
      rows.addAll(tableDS.toJSON().collectAsList());
    }
    assertThat(rows).hasSizeGreaterThan(10);
    assertNoCredentials(rows);

    Map<String, String> settings = TableReader.of(spark, warehouse).runs()
        .filter("run_id = '" + plan.runId() + "' and command = 'plan'").select("settings").first().getJavaMap(0);
    assertThat(settings).containsEntry("sweep.bucket", BUCKET).containsKey("sweep.endpoint");
    assertNoCredentials(List.of(settings.toString()));
  }

  @Test
  void noFileOfTheWarehouseHoldsTheSecretOrTheToken() throws IOException {
    List<String> files = new ArrayList<>();
    try (Stream<Path> paths = Files.walk(Path.of(warehouse))) {
      for (Path path : paths.filter(Files::isRegularFile).toList()) {
        files.add(path + ": " + new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1));
      }
    }
    assertThat(files).anyMatch(file -> file.contains("_delta_log"));
    assertNoCredentials(files);
  }

  private void assertNoCredentials(List<String> texts) {
    for (String text : texts) {
      if (text == null) {
        continue;
      }
      assertThat(text).doesNotContain(secretKey).doesNotContain(sessionToken);
      for (String marker : SIGNING_MARKERS) {
        assertThat(text).doesNotContainIgnoringCase(marker);
      }
    }
  }

  private List<String> tablesOfTheWarehouse() throws IOException {
    try (Stream<Path> paths = Files.list(Path.of(warehouse))) {
      return paths.filter(path -> Files.isDirectory(path.resolve("_delta_log")))
          .map(path -> path.getFileName().toString()).sorted().toList();
    }
  }

  private RunOptions options(LocalS3Server server, String bucket, Map<String, String> extra,
      Map<String, String> environment) {
    return TestOptions.of(server.endpoint(), bucket, P, warehouse).with("--log-lines", "all").with(extra)
        .environment(environment).options();
  }

  private static byte[] randomBytes(int count) {
    byte[] bytes = new byte[count];
    ThreadLocalRandom.current().nextBytes(bytes);
    return bytes;
  }

  /**
   * Every log event of the JVM while open: an appender on the root logger, statesweep's loggers at
   * TRACE and the root at INFO. The console appender is detached meanwhile (Spark's INFO lines would
   * flood the build's output) and everything is restored on close.
   */
  private static final class LogCapture extends AbstractAppender implements AutoCloseable {
    private final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
    private final LoggerContext context;
    private final Map<String, Level> levels = new HashMap<>();
    private final Map<String, Appender> detached = new HashMap<>();

    private LogCapture(LoggerContext context) {
      super("statesweep-security-capture", null,
          PatternLayout.newBuilder().withPattern("%d %-5p %c: %m%n%throwable").build(), true, Property.EMPTY_ARRAY);
      this.context = context;
    }

    static LogCapture attach() {
      LogCapture capture = new LogCapture((LoggerContext) LogManager.getContext(false));
      capture.start();
      Configuration config = capture.context.getConfiguration();
      LoggerConfig root = config.getRootLogger();
      capture.detached.putAll(root.getAppenders());
      capture.detached.keySet().forEach(root::removeAppender);
      root.addAppender(capture, Level.ALL, null);
      Set<LoggerConfig> loggers = new LinkedHashSet<>(config.getLoggers().values());
      loggers.add(root);
      for (LoggerConfig logger : loggers) {
        capture.levels.putIfAbsent(logger.getName(), logger.getLevel());
        logger.setLevel(logger.getName().startsWith("io.statesweep") ? Level.TRACE : Level.INFO);
      }
      capture.context.updateLoggers();
      return capture;
    }

    @Override
    public void append(LogEvent event) {
      lines.add(((PatternLayout) getLayout()).toSerializable(event));
    }

    List<String> lines() {
      synchronized (lines) {
        return List.copyOf(lines);
      }
    }

    @Override
    public void close() {
      Configuration config = context.getConfiguration();
      LoggerConfig root = config.getRootLogger();
      root.removeAppender(getName());
      detached.values().forEach(appender -> root.addAppender(appender, null, null));
      levels.forEach((name, level) -> (name.isEmpty() ? root : config.getLoggerConfig(name)).setLevel(level));
      context.updateLoggers();
      stop();
    }
  }

  /** What goes to System.out and System.err while open, still passed through. */
  private static final class PrintCapture implements AutoCloseable {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;

    static PrintCapture start() {
      PrintCapture capture = new PrintCapture();
      System.setOut(new PrintStream(new Tee(capture.out, capture.bytes), true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(new Tee(capture.err, capture.bytes), true, StandardCharsets.UTF_8));
      return capture;
    }

    String text() {
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }

    @Override
    public void close() {
      System.setOut(out);
      System.setErr(err);
    }
  }

  private static final class Tee extends OutputStream {
    private final OutputStream first;
    private final ByteArrayOutputStream second;

    Tee(OutputStream first, ByteArrayOutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws IOException {
      first.write(b);
      synchronized (second) {
        second.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      first.write(b, off, len);
      synchronized (second) {
        second.write(b, off, len);
      }
    }
  }
}
