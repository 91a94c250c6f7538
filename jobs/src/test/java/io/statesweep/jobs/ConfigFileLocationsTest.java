package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --config-file} and a {@code --layout} file from anywhere Hadoop reaches: on the S3 server through
 * {@code s3a://} (and {@code s3://}, which is S3A on a cluster without EMRFS), through {@code file:}, and as local
 * paths, a plan runs exactly as it does from local files. The endpoint that reaches the config file comes from the
 * flags or the environment; the file itself may name the endpoint the layout is read from.
 */
@ExtendWith(S3ServerExtension.class)
class ConfigFileLocationsTest {
  private static final String EXPORT = "files-export";
  private static final String CONF = "statesweep-conf";
  private static final String[] S3A_CREDENTIALS = {"spark.hadoop.fs.s3a.access.key", "spark.hadoop.fs.s3a.secret.key"};

  private static LocalS3Server server;
  private static ObjectStore conf;
  private static String layout;

  @BeforeAll
  static void archive(LocalS3Server s3) throws IOException {
    server = s3;
    server.createBucket(EXPORT);
    server.createBucket(CONF);
    SampleArchive.generate(S3ObjectStore.open(server.s3Settings(), EXPORT), "cogram/", 60, 7L,
        Instant.now());
    conf = S3ObjectStore.open(server.s3Settings(), CONF);
    // The built-in layout without the meetings kind: a plan that read it differs from one with the default.
    layout = Files.readString(Path.of("..", "conf", "layouts", "cogram.json"))
        .replace("\"name\": \"cogram\"", "\"name\": \"cogram-without-meetings\"").replace("\"meetings\", ", "");
    assertThat(layout).contains("cogram-without-meetings").doesNotContain("\"meetings\"");
    // S3A's credentials, as `spark-submit --conf spark.hadoop.fs.s3a.access.key=...` gives them to a session made
    // later, and as a platform has them in a session that exists (an earlier test class's, here).
    System.setProperty(S3A_CREDENTIALS[0], server.accessKey());
    System.setProperty(S3A_CREDENTIALS[1], server.secretKey());
    if (SparkSession.getDefaultSession().isDefined()) {
      var hadoop = SparkSession.getDefaultSession().get().sparkContext().hadoopConfiguration();
      hadoop.set("fs.s3a.access.key", server.accessKey());
      hadoop.set("fs.s3a.secret.key", server.secretKey());
    }
  }

  @AfterAll
  static void clearCredentials() {
    for (String property : S3A_CREDENTIALS) {
      System.clearProperty(property);
    }
  }

  @Test
  void aPlanFromAConfigFileAndLayoutInS3OrAtFileUrisIsThePlanFromLocalFiles(@TempDir Path dir) throws IOException {
    Path localLayout = Files.writeString(dir.resolve("layout.json"), layout);
    Path localConfig = Files.writeString(dir.resolve("statesweep.properties"), properties(localLayout.toString()));
    Path fileConfig = Files.writeString(dir.resolve("file-uris.properties"), properties(localLayout.toUri().toString()));
    conf.write("layouts/layout.json", layout.getBytes(StandardCharsets.UTF_8));
    conf.write("daily.properties", properties("s3a://" + CONF + "/layouts/layout.json")
        .getBytes(StandardCharsets.UTF_8));
    conf.write("daily-s3.properties", properties("s3://" + CONF + "/layouts/layout.json")
        .getBytes(StandardCharsets.UTF_8));

    CommandOutput local = plan(dir, "local", Map.of(), "--config-file", localConfig.toString(), "--endpoint",
        server.endpoint());
    CommandOutput fromS3a = plan(dir, "s3a", Map.of(), "--config-file", "s3a://" + CONF + "/daily.properties",
        "--endpoint", server.endpoint());
    // The endpoint from the environment reaches the file as well as the flag does.
    CommandOutput fromS3 = plan(dir, "s3", Map.of("STATESWEEP_ENDPOINT", server.endpoint()), "--config-file",
        "s3://" + CONF + "/daily-s3.properties");
    CommandOutput fromFileUris = plan(dir, "file", Map.of(), "--config-file", "file:" + fileConfig,
        "--endpoint", server.endpoint());
    CommandOutput builtIn = plan(dir, "built-in", Map.of(), "--config-file", localConfig.toString(), "--layout",
        "cogram", "--endpoint", server.endpoint());

    assertThat(local.code()).as(local.errors()).isZero();
    assertThat(planLines(local)).isNotEmpty();
    assertThat(fromS3a.code()).as(fromS3a.errors()).isZero();
    assertThat(planLines(fromS3a)).isEqualTo(planLines(local));
    assertThat(fromS3.code()).as(fromS3.errors()).isZero();
    assertThat(planLines(fromS3)).isEqualTo(planLines(local));
    assertThat(fromFileUris.code()).as(fromFileUris.errors()).isZero();
    assertThat(planLines(fromFileUris)).isEqualTo(planLines(local));
    assertThat(builtIn.code()).as(builtIn.errors()).isZero();
    assertThat(planLines(builtIn)).as("the layout file was read: its plan is not the built-in layout's")
        .isNotEqualTo(planLines(local));
  }

  @Test
  void aConfigFileThatIsNotThereIsNamedAndNothingRuns(@TempDir Path dir) {
    CommandOutput missing = plan(dir, "missing", Map.of(), "--config-file", "s3a://" + CONF + "/nope.properties",
        "--endpoint", server.endpoint());
    CommandOutput missingLayout = plan(dir, "missing-layout", Map.of(), "--bucket", EXPORT, "--prefix", "cogram/",
        "--layout", "s3a://" + CONF + "/layouts/nope.json", "--endpoint", server.endpoint());

    assertThat(missing.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(missing.errors()).isEqualTo("statesweep: Cannot read --config-file s3a://" + CONF
        + "/nope.properties: no such file\n");
    assertThat(missing.text()).startsWith("summary: dry_run=true complete=false");
    assertThat(missingLayout.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(missingLayout.errors()).isEqualTo("statesweep: Layout file s3a://" + CONF
        + "/layouts/nope.json does not exist (sweep.layout from --layout)\n");
    assertThat(dir.resolve("missing")).doesNotExist();
  }

  private static String properties(String layoutLocation) {
    return "sweep.bucket=" + EXPORT + "\nsweep.prefix=cogram/\nsweep.layout=" + layoutLocation
        + "\nsweep.log.lines=all\nsweep.state.reuse=false\n";
  }

  /** A plan with its own warehouse (a flag wins over the config file). */
  private static CommandOutput plan(Path dir, String warehouse, Map<String, String> environment, String... args) {
    List<String> command = new ArrayList<>(List.of("plan", "--warehouse", dir.resolve(warehouse).toString()));
    command.addAll(List.of(args));
    return CommandOutput.run(environment, command);
  }

  /** The plan's lines and counts: without its run id, warehouse and timings. */
  private static List<String> planLines(CommandOutput output) {
    List<String> lines = new ArrayList<>();
    for (String line : output.lines()) {
      if (line.startsWith("summary: ")) {
        lines.add(line.replaceAll("(errors=\\d+) .*", "$1"));
      } else if (!line.startsWith("metrics: ") && !line.startsWith("tables: ") && !line.isBlank()) {
        lines.add(line);
      }
    }
    return lines.stream().sorted().toList();
  }
}
