package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.spark.tables.RunsTable;
import io.statesweep.testing.S3ServerExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar is published under a path of its version, once (README, "Quick start on a platform"): the path holds the
 * jar's bytes, and a second publish of the same version is refused and leaves the first in place, so the code a job
 * names cannot change between a plan and its execute.
 */
@ExtendWith(S3ServerExtension.class)
class PublishTest {
  @Test
  void aVersionIsPublishedOnceUnderItsOwnPath(LocalS3Server server, @TempDir Path dir) throws Exception {
    String bucket = server.createBucket("artifacts");
    Path jar = Files.write(dir.resolve("statesweep.jar"), "the jar's bytes".getBytes(StandardCharsets.UTF_8));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    String path = Publish.run(new String[] {"--to", "s3://" + bucket + "/statesweep", "--jar", jar.toString()},
        server.s3Settings(), new PrintStream(printed, true, StandardCharsets.UTF_8));

    String key = "statesweep/" + RunsTable.VERSION + "/statesweep.jar";
    assertThat(path).isEqualTo("s3://" + bucket + "/" + key);
    S3ObjectStore store = S3ObjectStore.open(server.s3Settings(), bucket);
    assertThat(store.read(key, 1000).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("the jar's bytes");
    assertThat(printed.toString(StandardCharsets.UTF_8)).startsWith("published " + path + " (15 bytes, version "
        + RunsTable.VERSION + "): name it as the jar of every job in conf/deploy");

    Files.write(jar, "other bytes".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> Publish.run(new String[] {"--to", "s3://" + bucket + "/statesweep/", "--jar",
        jar.toString()}, server.s3Settings(), new PrintStream(new ByteArrayOutputStream(), true,
        StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(path + " holds a jar already: a version is published once");
    assertThat(store.read(key, 1000).bytes()).as("the first stays").asString(StandardCharsets.UTF_8)
        .isEqualTo("the jar's bytes");
    assertThatThrownBy(() -> Publish.run(new String[] {"--to", "artifacts/statesweep", "--jar", jar.toString()},
        server.s3Settings(), System.out)).hasMessage("--to must be s3://<bucket>/<folder>, not artifacts/statesweep");
  }
}
