package io.statesweep.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.testing.S3ServerExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

@ExtendWith(S3ServerExtension.class)
class LocalS3ServerTest {

  @Test
  void answersSignedRequestsWithTheDefaultCredentialsChain(LocalS3Server server) {
    String bucket = server.createBucket("local-server-signed");
    // Clients of the product find the credentials in the aws.* system properties the extension set.
    try (S3Client client = S3Clients.build(server.s3Settings())) {
      ObjectStore store = new S3ObjectStore(client, bucket);
      store.write("hello.txt", "hello".getBytes(StandardCharsets.UTF_8));

      assertThat(new String(store.read("hello.txt", 100).bytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
    }
    assertThat(server.endpoint()).isEqualTo("http://127.0.0.1:" + server.port());
    assertThat(System.getProperty("aws.accessKeyId")).isEqualTo(server.accessKey());
    assertThat(System.getProperty("aws.region")).isEqualTo("us-east-1");
  }

  @Test
  void createBucketIsIdempotent(LocalS3Server server) {
    assertThat(server.createBucket("local-server-twice")).isEqualTo("local-server-twice");
    assertThat(server.createBucket("local-server-twice")).isEqualTo("local-server-twice");
  }

  @Test
  void rejectsAWrongSecret(LocalS3Server server) {
    String bucket = server.createBucket("local-server-wrong-secret");
    try (S3Client client = LocalS3Server.client(server.endpoint(), server.accessKey(), "not-the-secret")) {
      assertThatThrownBy(() -> client.listObjectsV2(b -> b.bucket(bucket)))
          .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
    }
  }

  @Test
  void stopsOnClose() {
    LocalS3Server server = LocalS3Server.builder().maxHeap("256m").start();
    int port = server.port();
    Path logFile = server.logFile();
    assertThat(portAnswers(port)).isTrue();
    assertThat(server.isRunning()).isTrue();

    server.close();

    assertThat(server.isRunning()).isFalse();
    assertThat(portAnswers(port)).isFalse();
    assertThat(logFile).doesNotExist();
    server.close(); // idempotent
  }

  @Test
  void storesObjectsInADirectoryWithTheFilesystemBackend(@TempDir Path directory) {
    try (LocalS3Server server = LocalS3Server.builder().filesystem(directory).maxHeap("256m").start();
        S3Client client = LocalS3Server.client(server.endpoint(), server.accessKey(), server.secretKey())) {
      String bucket = server.createBucket("local-server-filesystem");
      new S3ObjectStore(client, bucket).write("a/b.txt", new byte[] {1, 2, 3});

      assertThat(directory.resolve(bucket)).isDirectory();
      assertThat(server.storage()).isEqualTo(LocalS3Server.Storage.FILESYSTEM);
    }
  }

  @Test
  void namesThePropertyWhenTheJarIsMissing() {
    String previous = System.getProperty(LocalS3Server.JAR_PROPERTY);
    System.setProperty(LocalS3Server.JAR_PROPERTY, "/nonexistent/s3proxy.jar");
    try {
      assertThatThrownBy(LocalS3Server::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("The S3Proxy jar /nonexistent/s3proxy.jar named by the system property"
              + " statesweep.s3proxy.jar does not exist");
    } finally {
      System.setProperty(LocalS3Server.JAR_PROPERTY, previous);
    }
  }

  @Test
  void failsWithTheLastLinesOfItsLogWhenTheServerCannotStart(@TempDir Path directory) throws IOException {
    Path notAJar = Files.writeString(directory.resolve("s3proxy.jar"), "not a jar");

    Throwable failure = catchThrowable(() -> LocalS3Server.builder().jar(notAJar).start());

    assertThat(failure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("S3Proxy exited with code 1 before answering on 127.0.0.1:")
        .hasMessageContaining("; last lines of its log /")
        .hasMessageContaining("ClassNotFoundException: org.gaul.s3proxy.Main");
    // A failed start keeps its temporary directory for the log: this test cleans up after itself.
    Matcher log = Pattern.compile("its log (\\S+)/s3proxy\\.log:").matcher(failure.getMessage());
    assertThat(log.find()).isTrue();
    deleteRecursively(Path.of(log.group(1)));
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static boolean portAnswers(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
