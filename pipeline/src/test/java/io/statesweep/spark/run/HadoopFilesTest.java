package io.statesweep.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.spark.run.HadoopFiles;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.FileSource;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settings' files read through Hadoop's FileSystem from wherever they are: s3a:// and s3:// on the test S3
 * server (s3:// is S3A where the platform has no S3 filesystem, as here), file: and plain local paths.
 */
@ExtendWith(S3ServerExtension.class)
class HadoopFilesTest {
  private static final String BUCKET = "hadoop-files";
  private static final byte[] CONTENT = "sweep.bucket=b\nsweep.prefix=cogram/\n".getBytes(StandardCharsets.UTF_8);

  private LocalS3Server server;

  @BeforeEach
  void put(LocalS3Server server) {
    this.server = server;
    server.createBucket(BUCKET);
    S3ObjectStore.open(server.s3Settings(), BUCKET).write("conf/daily.properties", CONTENT);
  }

  @Test
  void readsS3aS3FileAndPlainLocalPaths(@TempDir Path dir) throws IOException {
    Path local = Files.write(dir.resolve("daily.properties"), CONTENT);
    HadoopFiles files = new HadoopFiles(reachingTheServer());

    assertThat(files.read("s3a://" + BUCKET + "/conf/daily.properties", 1024)).isEqualTo(CONTENT);
    assertThat(files.read("s3://" + BUCKET + "/conf/daily.properties", 1024)).isEqualTo(CONTENT);
    assertThat(files.read(local.toUri().toString(), 1024)).isEqualTo(CONTENT);
    assertThat(files.read("file:" + local, 1024)).isEqualTo(CONTENT);
    assertThat(files.read(local.toString(), 1024)).isEqualTo(CONTENT);
  }

  @Test
  void aPlainPathIsLocalEvenWhenTheClusterDefaultFilesystemIsAnother(@TempDir Path dir) throws IOException {
    Files.write(dir.resolve("daily.properties"), CONTENT);
    Configuration configuration = reachingTheServer();
    configuration.set("fs.defaultFS", "s3a://" + BUCKET + "/");

    assertThat(new HadoopFiles(configuration).read(dir.resolve("daily.properties").toString(), 1024))
        .isEqualTo(CONTENT);
  }

  @Test
  void aMissingFileIsMissingAndATooLargeOneIsRefused(@TempDir Path dir) {
    HadoopFiles files = new HadoopFiles(reachingTheServer());

    assertThatThrownBy(() -> files.read("s3a://" + BUCKET + "/conf/nope.properties", 1024))
        .isInstanceOfSatisfying(IOException.class, e -> assertThat(FileSource.isMissing(e)).isTrue());
    assertThatThrownBy(() -> files.read(dir.resolve("nope.properties").toString(), 1024))
        .isInstanceOfSatisfying(IOException.class, e -> assertThat(FileSource.isMissing(e)).isTrue());
    assertThatThrownBy(() -> files.read("s3a://" + BUCKET + "/conf/daily.properties", 10))
        .hasMessage("larger than 10 bytes");
  }

  @Test
  void s3IsThePlatformsOwnFilesystemWhereItHasOne() {
    Configuration emr = new Configuration(false);
    emr.set("fs.s3.impl", "com.amazon.ws.emr.hadoop.fs.EmrFileSystem");

    assertThat(new HadoopFiles(emr).configuration().get("fs.s3.impl"))
        .isEqualTo("com.amazon.ws.emr.hadoop.fs.EmrFileSystem");
    assertThat(new HadoopFiles(new Configuration(false)).configuration().get("fs.s3.impl"))
        .isEqualTo(HadoopFiles.S3A_FILE_SYSTEM);
  }

  /** What spark-submit's spark.hadoop.* settings would give S3A, with the endpoint as the run's flags say. */
  private Configuration reachingTheServer() {
    Configuration configuration = new Configuration();
    HadoopFiles.s3aEndpoint(server.s3Settings()).forEach(configuration::set);
    configuration.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    configuration.set("fs.s3a.access.key", server.accessKey());
    configuration.set("fs.s3a.secret.key", server.secretKey());
    return configuration;
  }
}
