package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.testing.S3ServerExtension;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar as it ships reads {@code --config-file} and the layout it names from {@code s3a://}, with the
 * platform's Hadoop and S3A (not the jar's: it has none) and the credentials from the environment, as README
 * tells users to give them.
 */
@ExtendWith(S3ServerExtension.class)
class ShadedJarConfigFileIT {
  private static final Path JAR = Path.of(System.getProperty("statesweep.jar"));

  @Test
  void theJarPlansFromAConfigFileAndLayoutInS3(LocalS3Server server, @TempDir Path dir) throws Exception {
    server.createBucket("jar-export");
    server.createBucket("jar-conf");
    SampleArchive.generate(new ObjectStore(S3Clients.shared(server.s3Settings()), "jar-export"), "cogram/", 60, 3L,
        Instant.now());
    ObjectStore conf = new ObjectStore(S3Clients.shared(server.s3Settings()), "jar-conf");
    conf.write("layouts/layout.json", Files.readAllBytes(Path.of("..", "conf", "layouts", "cogram.json")));
    conf.write("daily.properties", ("sweep.bucket=jar-export\nsweep.prefix=cogram/\nsweep.layout=s3a://jar-conf/layouts/"
        + "layout.json\n").getBytes(StandardCharsets.UTF_8));

    Run plan = run(server, dir, "plan", "--config-file", "s3a://jar-conf/daily.properties", "--endpoint",
        server.endpoint(), "--warehouse", dir.resolve("warehouse").toString());
    Run missing = run(server, dir, "plan", "--config-file", "s3a://jar-conf/daily.properties", "--endpoint",
        server.endpoint(), "--layout", "s3a://jar-conf/layouts/nope.json");

    assertThat(plan.code).as(plan.output).isZero();
    assertThat(plan.output.lines().filter(line -> line.startsWith("summary: ")).findFirst())
        .hasValueSatisfying(line -> assertThat(line).startsWith("summary: dry_run=true complete=true"));
    assertThat(missing.code).as(missing.output).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(missing.output).contains("statesweep: Layout file s3a://jar-conf/layouts/nope.json does not exist"
        + " (sweep.layout from --layout)");
  }

  private record Run(int code, String output) {}

  private static Run run(LocalS3Server server, Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g"));
    command.addAll(Arrays.asList(System.getProperty("spark.java17.flags").trim().split("\\s+")));
    command.addAll(List.of("-cp", JAR + File.pathSeparator
        + Files.readString(Path.of(System.getProperty("statesweep.provided.classpath"))).strip(),
        "io.statesweep.jobs.StatesweepCli"));
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "run", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("AWS_ACCESS_KEY_ID", server.accessKey());
    builder.environment().put("AWS_SECRET_ACCESS_KEY", server.secretKey());
    builder.environment().put("AWS_REGION", LocalS3Server.REGION);
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process process = builder.start();
    boolean finished = process.waitFor(10, TimeUnit.MINUTES);
    if (!finished) {
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(finished).as(output).isTrue();
    return new Run(process.exitValue(), output);
  }
}
